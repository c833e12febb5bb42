/** Reading what a flush left behind: the session state as the client would mirror it, plus raw rows. */
import { and, asc, eq } from "drizzle-orm";
import { applyDelta, createState, type CondenseState } from "@condense/core";
import { getSession, getStateDelta, schema, type Db } from "@condense/db";
import { TENANT } from "./flush-fixtures.ts";

export async function stateOf(db: Db, sessionId: string, tenantId = TENANT): Promise<CondenseState> {
  const delta = await getStateDelta(db, { tenantId, sessionId, since: 0 });
  if (!delta) throw new Error(`no session ${sessionId}`);
  const r = applyDelta(createState(), delta);
  if (!r.ok) throw new Error(r.message);
  return r.state;
}

export async function metricsRows(db: Db, sessionId: string, tenantId = TENANT) {
  return db
    .select()
    .from(schema.flushMetrics)
    .where(and(eq(schema.flushMetrics.tenantId, tenantId), eq(schema.flushMetrics.sessionId, sessionId)))
    .orderBy(asc(schema.flushMetrics.id));
}

export async function captureRows(db: Db, sessionId: string, tenantId = TENANT) {
  return db
    .select()
    .from(schema.captures)
    .where(and(eq(schema.captures.tenantId, tenantId), eq(schema.captures.sessionId, sessionId)))
    .orderBy(asc(schema.captures.seq));
}

export async function sessionRow(db: Db, sessionId: string, tenantId = TENANT) {
  const s = await getSession(db, { tenantId, sessionId });
  if (!s) throw new Error(`no session ${sessionId}`);
  return s;
}

export async function chainRows(db: Db, sessionId: string, tenantId = TENANT) {
  return db
    .select()
    .from(schema.chains)
    .where(and(eq(schema.chains.tenantId, tenantId), eq(schema.chains.sessionId, sessionId)))
    .orderBy(asc(schema.chains.seq));
}

export async function diagnosticRows(db: Db, sessionId: string, tenantId = TENANT) {
  return db
    .select()
    .from(schema.diagnostics)
    .where(and(eq(schema.diagnostics.tenantId, tenantId), eq(schema.diagnostics.sessionId, sessionId)));
}
