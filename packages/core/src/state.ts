/**
 * The session state mirror and its lookups (CAP-IDX-3..6). A `CondenseState` is immutable: every
 * `applyDelta` builds a new one, with its lookup maps built once for that version, so the render
 * path only does map lookups.
 */
import { bareToolCallId, parseOccKey, shortRefNumber } from "./keys.ts";
import { STATE_DELTA_FORMAT, type StateDelta } from "./state-delta.ts";
import {
  emptyStats,
  type ChainEntry,
  type DedupAlias,
  type Frontier,
  type SummarizerStats,
  type SummaryEntry,
  type ToolCallRecord,
} from "./state-types.ts";

export interface CondenseState {
  readonly version: number;
  /** occurrence key -> record */
  readonly records: ReadonlyMap<string, ToolCallRecord>;
  /** bare id -> occurrence keys, in insertion order */
  readonly bareIdToKeys: ReadonlyMap<string, readonly string[]>;
  /** `tN` -> key, and key -> `tN` (aliases inherit their original's ref) */
  readonly refToKey: ReadonlyMap<string, string>;
  readonly keyToRef: ReadonlyMap<string, string>;
  /** alias key -> original key */
  readonly aliases: ReadonlyMap<string, string>;
  /** content hash -> canonical key (first seen wins; backfilled records never seed it) */
  readonly canonicalByHash: ReadonlyMap<string, string>;
  readonly summaries: readonly SummaryEntry[];
  readonly summaryById: ReadonlyMap<string, SummaryEntry>;
  /** occurrence key -> summaries covering it, in registration order */
  readonly summariesByKey: ReadonlyMap<string, readonly SummaryEntry[]>;
  /** chain entries keyed by startUserTimestamp (later wins), in insertion order */
  readonly chains: readonly ChainEntry[];
  readonly frontier: Frontier | null;
  /** Occurrence keys settled without a record or alias (see StateDelta.settled). */
  readonly settled: ReadonlySet<string>;
  readonly stats: SummarizerStats;
  /** the next `tN` number that has never been registered */
  readonly nextRef: number;
}

export function createState(): CondenseState {
  return buildState(0, [], [], [], [], null, emptyStats());
}

export type ApplyDeltaResult =
  | { ok: true; state: CondenseState; changed: boolean }
  | { ok: false; reason: "bad-format" | "version-gap"; message: string };

/**
 * Apply a delta. A delta that starts after the mirror's version leaves a gap and is refused
 * (the client then asks for a full snapshot with since=0). A delta wholly older than the mirror is a
 * no-op. A full snapshot (fromVersion 0) replaces everything.
 */
export function applyDelta(state: CondenseState, delta: StateDelta): ApplyDeltaResult {
  if (
    !delta ||
    delta.format !== STATE_DELTA_FORMAT ||
    typeof delta.toVersion !== "number" ||
    typeof delta.fromVersion !== "number"
  ) {
    return { ok: false, reason: "bad-format", message: `expected a ${STATE_DELTA_FORMAT} delta` };
  }
  if (delta.toVersion <= state.version && delta.fromVersion !== 0) return { ok: true, state, changed: false };
  if (delta.fromVersion > state.version) {
    return {
      ok: false,
      reason: "version-gap",
      message: `delta starts at ${delta.fromVersion} but the mirror is at ${state.version}; fetch since=0`,
    };
  }
  const base = delta.fromVersion === 0 ? createState() : state;
  const records = mergeBy([...base.records.values()], delta.records ?? [], (r) => r.key);
  const summaries = mergeBy([...base.summaries], delta.summaries ?? [], (s) => s.id);
  const aliases = mergeBy(
    [...base.aliases].map(([key, originalKey]) => ({ key, originalKey })),
    delta.aliases ?? [],
    (a) => a.key,
  );
  const chains = mergeBy([...base.chains], delta.chains ?? [], (c) => String(c.startUserTimestamp));
  const frontier = delta.frontier === undefined ? base.frontier : delta.frontier;
  const stats = delta.stats ?? base.stats;
  const settled = delta.settled && delta.settled.length > 0 ? [...base.settled, ...delta.settled] : base.settled;
  return {
    ok: true,
    state: buildState(delta.toVersion, records, summaries, aliases, chains, frontier, stats, settled),
    changed: true,
  };
}

function mergeBy<T>(base: T[], add: T[], key: (t: T) => string): T[] {
  if (add.length === 0) return base;
  const pos = new Map<string, number>();
  base.forEach((t, i) => {
    pos.set(key(t), i);
  });
  const out = base.slice();
  for (const t of add) {
    const k = key(t);
    const i = pos.get(k);
    if (i === undefined) {
      pos.set(k, out.length);
      out.push(t);
    } else out[i] = t;
  }
  return out;
}

/** The state as the full snapshot the service sends for `since=0`: `applyDelta(createState(), it)` gives it back. */
export function stateSnapshot(state: CondenseState): StateDelta {
  return {
    format: STATE_DELTA_FORMAT,
    fromVersion: 0,
    toVersion: state.version,
    records: [...state.records.values()],
    summaries: [...state.summaries],
    aliases: [...state.aliases].map(([key, originalKey]) => ({ key, originalKey })),
    chains: [...state.chains],
    frontier: state.frontier,
    stats: state.stats,
    settled: [...state.settled],
  };
}

/** Build a state (and all its lookup maps) from plain entries. Also used by tests and the worker. */
export function buildState(
  version: number,
  recordList: readonly ToolCallRecord[],
  summaryList: readonly SummaryEntry[],
  aliasList: readonly DedupAlias[],
  chainList: readonly ChainEntry[],
  frontier: Frontier | null,
  stats: SummarizerStats,
  settledKeys: Iterable<string> = [],
): CondenseState {
  const records = new Map<string, ToolCallRecord>();
  const bareIdToKeys = new Map<string, string[]>();
  const refToKey = new Map<string, string>();
  const keyToRef = new Map<string, string>();
  const canonicalByHash = new Map<string, string>();
  let maxRef = 0;
  for (const r of recordList) {
    records.set(r.key, r);
    const bare = r.toolCallId ?? bareToolCallId(r.key);
    const keys = bareIdToKeys.get(bare);
    if (!keys) bareIdToKeys.set(bare, [r.key]);
    else if (!keys.includes(r.key)) keys.push(r.key);
    if (r.shortRef) {
      refToKey.set(r.shortRef, r.key);
      keyToRef.set(r.key, r.shortRef);
      maxRef = Math.max(maxRef, shortRefNumber(r.shortRef) ?? 0);
    }
    if (r.contentHash && !r.backfilled && !canonicalByHash.has(r.contentHash))
      canonicalByHash.set(r.contentHash, r.key);
  }
  const summaryById = new Map<string, SummaryEntry>();
  const summariesByKey = new Map<string, SummaryEntry[]>();
  for (const s of summaryList) {
    summaryById.set(s.id, s);
    for (const k of s.coverage) {
      const list = summariesByKey.get(k);
      if (!list) summariesByKey.set(k, [s]);
      else list.push(s);
    }
    for (const ref of s.refs) {
      const n = shortRefNumber(ref.shortId);
      if (n !== undefined) maxRef = Math.max(maxRef, n);
    }
  }
  // Aliases are applied after everything else so an alias recorded before its original's summary
  // still inherits the original's ref (CAP-IDX-10).
  const aliases = new Map<string, string>();
  for (const a of aliasList) {
    if (a.key === a.originalKey) continue;
    aliases.set(a.key, a.originalKey);
    const ref = keyToRef.get(a.originalKey);
    if (ref && !keyToRef.has(a.key)) keyToRef.set(a.key, ref);
  }
  const byStart = new Map<number, ChainEntry>();
  for (const c of chainList) byStart.set(c.startUserTimestamp, c);
  return {
    version,
    records,
    bareIdToKeys,
    refToKey,
    keyToRef,
    aliases,
    canonicalByHash,
    summaries: summaryList,
    summaryById,
    summariesByKey,
    chains: [...byStart.values()],
    frontier,
    settled: settledKeys instanceof Set ? settledKeys : new Set(settledKeys),
    stats,
    nextRef: maxRef + 1,
  };
}

/** Strict (CAP-IDX-4): indexed or a dedup alias; never falls back from an occurrence key to a bare id. */
export function isSummarized(state: CondenseState, key: string): boolean {
  return state.records.has(key) || state.aliases.has(key);
}

/**
 * Coverage: the service already has this occurrence as a record, an alias or a deliberate skip, so a
 * capture or rescan must not send it again. Keyed by occurrence, never by position: branches of one
 * session tree share the state, and a position (turn index) on one branch says nothing about another.
 */
export function isCovered(state: CondenseState, key: string): boolean {
  return state.records.has(key) || state.aliases.has(key) || state.settled.has(key);
}

/** CAP-IDX-5: the only sanctioned bare-id fallback. */
export function hasLegacyBareRecord(state: CondenseState, id: string): boolean {
  return state.records.has(id) && (state.bareIdToKeys.get(id)?.length ?? 0) === 1;
}

/** CAP-IDX-6 resolve order: exact key -> alias target -> short ref -> unambiguous bare id. */
export function resolveKey(state: CondenseState, input: string): string | undefined {
  if (state.records.has(input)) return input;
  const alias = state.aliases.get(input);
  if (alias !== undefined) return alias;
  const byRef = state.refToKey.get(input);
  if (byRef !== undefined) return byRef;
  const keys = state.bareIdToKeys.get(input);
  if (keys && keys.length === 1) return keys[0];
  return undefined;
}

/** The record an occurrence key (or alias key) stands for. */
export function recordFor(state: CondenseState, key: string): ToolCallRecord | undefined {
  return state.records.get(key) ?? (state.aliases.has(key) ? state.records.get(state.aliases.get(key)!) : undefined);
}

export interface QueryHit {
  label: string;
  record: ToolCallRecord;
  legacy: boolean;
}

/**
 * CAP-IDX-6 getRecordsForId + CAP-QUERY-2 labels: every occurrence of a bare id (aliases carry their own
 * timestamp with the original's content), chronological; else the single resolved record.
 */
export function recordsForId(state: CondenseState, input: string): QueryHit[] {
  const found: ToolCallRecord[] = [];
  for (const k of state.bareIdToKeys.get(input) ?? []) {
    const r = state.records.get(k);
    if (r) found.push(r);
  }
  for (const [aliasKey, originalKey] of state.aliases) {
    const parsed = parseOccKey(aliasKey);
    if (parsed.id !== input) continue;
    const orig = state.records.get(originalKey);
    if (!orig) continue;
    found.push({ ...orig, key: aliasKey, toolCallId: parsed.id, resultTimestamp: parsed.ts });
  }
  if (found.length === 0) {
    const k = resolveKey(state, input);
    const r = k === undefined ? undefined : recordFor(state, k);
    return r ? [{ label: input, record: r, legacy: false }] : [];
  }
  found.sort((a, b) => (a.resultTimestamp ?? a.timestamp) - (b.resultTimestamp ?? b.timestamp));
  if (found.length === 1) return [{ label: input, record: found[0]!, legacy: false }];
  return found.map((r) => ({
    label: r.resultTimestamp !== undefined ? `${r.toolCallId}@${r.resultTimestamp}` : r.toolCallId,
    record: r,
    legacy: r.resultTimestamp === undefined,
  }));
}
