/**
 * Out-of-line result bodies (capture_bodies): parts uploaded before the capture that refers to them,
 * the whole body read back once to verify and index it at capture time, and windows of it read for
 * recovery pages (only the parts a window covers). A part, once stored, never changes: a retried
 * upload of the same text is a no-op, and different text for a stored part is refused.
 */
import { and, asc, eq, gt, lt, sql } from "drizzle-orm";
import type { Db, Tx } from "../client.ts";
import { captureBodies } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";
import { ensureSession } from "./sessions.ts";

export interface BodyPartInput extends SessionKey {
  occurrenceKey: string;
  part: number;
  startChar: number;
  text: string;
}

export type PutBodyPartResult = "stored" | "unchanged" | "conflict";

export async function putBodyPart(db: Db, input: BodyPartInput): Promise<PutBodyPartResult> {
  await ensureSession(db, input);
  const inserted = await db
    .insert(captureBodies)
    .values({
      tenantId: input.tenantId,
      sessionId: input.sessionId,
      occurrenceKey: input.occurrenceKey,
      part: input.part,
      startChar: input.startChar,
      chars: input.text.length,
      text: input.text,
    })
    .onConflictDoNothing()
    .returning({ part: captureBodies.part });
  if (inserted.length > 0) return "stored";
  const [existing] = await db
    .select({ startChar: captureBodies.startChar, text: captureBodies.text })
    .from(captureBodies)
    .where(partKey(input, input.occurrenceKey, input.part));
  return existing && existing.startChar === input.startChar && existing.text === input.text ? "unchanged" : "conflict";
}

export type AssembledBody = { ok: true; text: string } | { ok: false; missing: number[]; reason: string };

/** The whole body from its parts 0..parts-1; says which parts are missing or misplaced. */
export async function assembleBody(
  db: Db | Tx,
  key: SessionKey,
  occurrenceKey: string,
  parts: number,
): Promise<AssembledBody> {
  const rows = await db
    .select({
      part: captureBodies.part,
      startChar: captureBodies.startChar,
      chars: captureBodies.chars,
      text: captureBodies.text,
    })
    .from(captureBodies)
    .where(
      and(
        eq(captureBodies.tenantId, key.tenantId),
        eq(captureBodies.sessionId, key.sessionId),
        eq(captureBodies.occurrenceKey, occurrenceKey),
        lt(captureBodies.part, parts),
      ),
    )
    .orderBy(asc(captureBodies.part));
  const have = new Set(rows.map((r) => r.part));
  const missing = Array.from({ length: parts }, (_, i) => i).filter((i) => !have.has(i));
  if (missing.length > 0)
    return { ok: false, missing, reason: `part(s) ${missing.slice(0, 10).join(", ")} not uploaded` };
  let at = 0;
  for (const r of rows) {
    if (r.startChar !== at)
      return {
        ok: false,
        missing: [r.part],
        reason: `part ${r.part} starts at character ${r.startChar}, expected ${at}`,
      };
    at += r.chars;
  }
  return { ok: true, text: rows.map((r) => r.text).join("") };
}

/** Characters [from, from + length) of a stored body: reads only the parts that overlap the window. */
export async function readBodyWindow(
  db: Db,
  key: SessionKey,
  occurrenceKey: string,
  from: number,
  length: number,
): Promise<string> {
  const rows = await db
    .select({ startChar: captureBodies.startChar, text: captureBodies.text })
    .from(captureBodies)
    .where(
      and(
        eq(captureBodies.tenantId, key.tenantId),
        eq(captureBodies.sessionId, key.sessionId),
        eq(captureBodies.occurrenceKey, occurrenceKey),
        lt(captureBodies.startChar, from + length),
        gt(sql`${captureBodies.startChar} + ${captureBodies.chars}`, from),
      ),
    )
    .orderBy(asc(captureBodies.part));
  if (rows.length === 0) return "";
  const joined = rows.map((r) => r.text).join("");
  const base = rows[0]!.startChar;
  return joined.slice(from - base, from - base + length);
}

function partKey(key: SessionKey, occurrenceKey: string, part: number) {
  return and(
    eq(captureBodies.tenantId, key.tenantId),
    eq(captureBodies.sessionId, key.sessionId),
    eq(captureBodies.occurrenceKey, occurrenceKey),
    eq(captureBodies.part, part),
  );
}
