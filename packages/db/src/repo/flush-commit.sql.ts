/**
 * The statements of `commitFlush` (statement.ts: named parameters). Fixed text (the rows travel as
 * jsonb parameters, unpacked with jsonb_to_recordset), so postgres.js prepares it once per
 * connection and Postgres plans it once.
 *
 * Order of effects inside the one statement: the request row and the staleness probes read the
 * statement's snapshot; `g`, the session-row update, is the guard: it applies only when the request
 * is not committed yet, no probe found a conflict and (optimistic path) `commit_seq` is the one the
 * caller saw. Every write joins `g`, so when the guard does not apply nothing is written.
 */
import { statement } from "../statement.ts";
import { aliasToRow } from "./dedup-aliases.ts";
import type { FlushWrites } from "./flush-commit.ts";
import { flushMetricsValues } from "./flush-metrics.ts";
import { frontierToRow } from "./frontiers.ts";
import { summaryToRow } from "./summaries.ts";
import { recordToRow } from "./tool-call-records.ts";

/** The per-session write lock (session-lock.ts computes the key). */
export const LOCK_SESSION = statement<{ lockKey: string }>("select pg_advisory_xact_lock(:lockKey::bigint)");

/** NO KEY UPDATE: the API's capture inserts (foreign-key KEY SHARE on this row) are not blocked. */
export const SESSION_FOR_UPDATE = statement<{ tenantId: string; sessionId: string }>(
  "select next_ref, stats from sessions where tenant_id = :tenantId and session_id = :sessionId for no key update",
);

export const STORE_RESULT = statement<{ flushRequestId: string; result: string }>(
  "update flush_requests set result = :result::jsonb where id = :flushRequestId::uuid",
);

export const COMMIT_FLUSH = statement<CommitParams>(`
with req as (
  select id, trigger, metrics, requested_at, status, result from flush_requests
  where tenant_id = :tenantId and id = :flushRequestId::uuid and session_id = :sessionId
), settle as (
  select * from jsonb_to_recordset(:settle::jsonb) as s(key text, status text, reason text)
), rec as (
  select * from jsonb_to_recordset(:records::jsonb) as x(
    key text, tool_call_id text, tool_name text, args jsonb, result_text text, is_error boolean, turn_index integer,
    batch_timestamp bigint, result_timestamp bigint, short_ref text, content_hash text, stored_bytes integer,
    stored_preview text, stored_body text, summary_id text, backfilled boolean)
), p0 as (
  select c.occurrence_key as key from captures c
  where c.tenant_id = :tenantId and c.session_id = :sessionId and c.occurrence_key in (select key from settle) and c.status <> 'pending'
), p1 as (
  select r.key from tool_call_records r
  where r.tenant_id = :tenantId and r.session_id = :sessionId and r.key in (select key from rec)
), g as (
  update sessions set
    commit_seq = commit_seq + 1,
    next_ref = greatest(next_ref, :nextRefAtLeast::integer),
    version = version + :bump::integer,
    stats = coalesce(:stats::jsonb, stats),
    stats_version = case when :stats::jsonb is null then stats_version else version + :bump::integer end,
    last_flush_at = now(),
    updated_at = now()
  where tenant_id = :tenantId and session_id = :sessionId
    and (:expectedCommitSeq::integer is null or commit_seq = :expectedCommitSeq::integer)
    and exists (select 1 from req where status <> 'committed')
    and not exists (select 1 from p0) and not exists (select 1 from p1)
  returning version, next_ref
), w_rec as (
  insert into tool_call_records (tenant_id, session_id, key, tool_call_id, tool_name, args, result_text, is_error, turn_index,
    batch_timestamp, result_timestamp, short_ref, content_hash, stored_bytes, stored_preview, stored_body, summary_id, backfilled,
    version, flush_request_id)
  select :tenantId, :sessionId, x.key, x.tool_call_id, x.tool_name, x.args, x.result_text, x.is_error, x.turn_index, x.batch_timestamp,
    x.result_timestamp, x.short_ref, x.content_hash, x.stored_bytes, x.stored_preview, x.stored_body, x.summary_id, x.backfilled,
    g.version, :flushRequestId::uuid
  from g, rec x
  on conflict (tenant_id, session_id, key) do update set
    tool_call_id = excluded.tool_call_id, tool_name = excluded.tool_name, args = excluded.args, result_text = excluded.result_text,
    is_error = excluded.is_error, turn_index = excluded.turn_index, batch_timestamp = excluded.batch_timestamp,
    result_timestamp = excluded.result_timestamp, short_ref = excluded.short_ref, content_hash = excluded.content_hash,
    stored_bytes = excluded.stored_bytes, stored_preview = excluded.stored_preview, stored_body = excluded.stored_body,
    summary_id = excluded.summary_id, backfilled = excluded.backfilled, version = excluded.version,
    flush_request_id = excluded.flush_request_id
  returning 1
), w_sum as (
  insert into summaries (tenant_id, session_id, id, text, refs, coverage, tool_names, turn_index, timestamp, version, flush_request_id)
  select :tenantId, :sessionId, y.id, y.text, y.refs, y.coverage, y.tool_names, y.turn_index, y.timestamp, g.version, :flushRequestId::uuid
  from g, jsonb_to_recordset(:summaries::jsonb) as y(id text, text text, refs jsonb, coverage jsonb, tool_names jsonb, turn_index integer, timestamp bigint)
  on conflict (tenant_id, session_id, id) do update set
    text = excluded.text, refs = excluded.refs, coverage = excluded.coverage, tool_names = excluded.tool_names,
    turn_index = excluded.turn_index, timestamp = excluded.timestamp, version = excluded.version, flush_request_id = excluded.flush_request_id
  returning 1
), w_alias as (
  insert into dedup_aliases (tenant_id, session_id, key, tool_call_id, original_key, version, flush_request_id)
  select :tenantId, :sessionId, a.key, a.tool_call_id, a.original_key, g.version, :flushRequestId::uuid
  from g, jsonb_to_recordset(:aliases::jsonb) as a(key text, tool_call_id text, original_key text)
  on conflict (tenant_id, session_id, key) do update set
    original_key = excluded.original_key, version = excluded.version, flush_request_id = excluded.flush_request_id
  returning 1
), w_front as (
  insert into frontiers (tenant_id, session_id, last_attempted_tool_call_id, last_attempted_tool_name, last_attempted_turn_index,
    last_attempted_timestamp, attempted_batch_count, attempted_tool_call_count, raw_char_count, summary_char_count, outcome, version)
  select :tenantId, :sessionId, f.last_attempted_tool_call_id, f.last_attempted_tool_name, f.last_attempted_turn_index, f.last_attempted_timestamp,
    f.attempted_batch_count, f.attempted_tool_call_count, f.raw_char_count, f.summary_char_count, f.outcome, g.version
  from g, jsonb_to_recordset(:frontier::jsonb) as f(last_attempted_tool_call_id text, last_attempted_tool_name text,
    last_attempted_turn_index integer, last_attempted_timestamp bigint, attempted_batch_count integer,
    attempted_tool_call_count integer, raw_char_count integer, summary_char_count integer, outcome text)
  on conflict (tenant_id, session_id) do update set
    last_attempted_tool_call_id = excluded.last_attempted_tool_call_id, last_attempted_tool_name = excluded.last_attempted_tool_name,
    last_attempted_turn_index = excluded.last_attempted_turn_index, last_attempted_timestamp = excluded.last_attempted_timestamp,
    attempted_batch_count = excluded.attempted_batch_count, attempted_tool_call_count = excluded.attempted_tool_call_count,
    raw_char_count = excluded.raw_char_count, summary_char_count = excluded.summary_char_count, outcome = excluded.outcome,
    version = excluded.version
  returning 1
), c as (
  update captures set status = s.status, status_reason = s.reason, settled_by = :flushRequestId::uuid
  from g, settle s
  where captures.tenant_id = :tenantId and captures.session_id = :sessionId and captures.occurrence_key = s.key
  returning captures.seq
), m as (
  insert into flush_metrics (tenant_id, session_id, flush_request_id, attempt, trigger, outcome, reason, captured_batches,
    processed_batches, attempted_calls, dedup_hits, raw_chars, summary_chars, metrics, queue_wait_ms, run_ms, model, body_source,
    input_tokens, output_tokens, cost, fidelity_score, worker_id, summary_models, summarizer_source, summarizer_notice)
  select :tenantId, :sessionId, :flushRequestId::uuid, :attempt::integer, coalesce(k.trigger, req.trigger), k.outcome, k.reason, k.captured_batches,
    k.processed_batches, k.attempted_calls, k.dedup_hits, k.raw_chars, k.summary_chars, coalesce(k.metrics, req.metrics),
    k.queue_wait_ms, k.run_ms, k.model, k.body_source, k.input_tokens, k.output_tokens, k.cost, k.fidelity_score, k.worker_id,
    k.summary_models, k.summarizer_source, k.summarizer_notice
  from g, req, jsonb_to_record(:metrics::jsonb) as k(trigger text, outcome text, reason text, captured_batches integer,
    processed_batches integer, attempted_calls integer, dedup_hits integer, raw_chars integer, summary_chars integer, metrics jsonb,
    queue_wait_ms integer, run_ms integer, model text, body_source text, input_tokens integer, output_tokens integer,
    cost double precision, fidelity_score double precision, worker_id text, summary_models jsonb, summarizer_source text,
    summarizer_notice text)
  on conflict (flush_request_id, attempt) do nothing
  returning id
), w_req as (
  update flush_requests set status = 'committed', completed_at = now(), committed_version = g.version,
    result = :stored::jsonb || jsonb_build_object('version', g.version, 'nextRef', g.next_ref)
  from g where flush_requests.id = :flushRequestId::uuid
  returning 1
), w_coalesce as (
  update flush_requests set status = 'coalesced', coalesced_into = :flushRequestId::uuid, completed_at = now()
  from g, req
  where flush_requests.tenant_id = :tenantId and flush_requests.session_id = :sessionId and flush_requests.status = 'queued'
    and flush_requests.id <> :flushRequestId::uuid and flush_requests.requested_at <= req.requested_at
  returning flush_requests.id, flush_requests.trigger, flush_requests.metrics
), w_coalesce_m as (
  -- Every request is accounted: a coalesced one gets its own row (attempt 0: no worker ran it).
  insert into flush_metrics (tenant_id, session_id, flush_request_id, attempt, trigger, outcome, reason, metrics)
  select :tenantId, :sessionId, w.id, 0, w.trigger, 'coalesced', 'coalesced-into:' || :flushRequestId::text, coalesce(w.metrics, '{}'::jsonb)
  from w_coalesce w
  on conflict (flush_request_id, attempt) do nothing
  returning 1
)
select
  (select count(*) from g)::integer as applied,
  (select version from g) as version,
  (select next_ref from g) as next_ref,
  (select coalesce(json_agg(k.key), '[]'::json) from (select key from p0 union select key from p1) k) as conflicts,
  (select count(distinct seq) from c)::integer as settled,
  (select count(*) from m)::integer as metrics,
  (select status from req) as request_status,
  (select result from req) as request_result,
  (select version from sessions where tenant_id = :tenantId and session_id = :sessionId) as current_version,
  (select next_ref from sessions where tenant_id = :tenantId and session_id = :sessionId) as current_next_ref`);

/** The statement's one row (int8 columns as strings on postgres.js, numbers on PGlite). */
export interface CommitRow extends Record<string, unknown> {
  applied: number;
  version: unknown;
  next_ref: unknown;
  conflicts: string[] | string;
  settled: number;
  metrics: number;
  request_status: string | null;
  request_result: Record<string, unknown> | null;
  current_version: unknown;
  current_next_ref: unknown;
}

export interface CommitParamsInput {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  attempt: number;
  /** Null on the locked path (the lock orders commits); the seen value on the optimistic path. */
  expectedCommitSeq: number | null;
  bump: boolean;
  /** The session's new stats, or null to leave them. */
  stats: object | null;
  /** The counter after minting (the stored one is kept when larger). */
  nextRefAtLeast: number;
  writes: FlushWrites;
  /** The request's stored result, without the version and counter the statement adds. */
  stored: object;
}

/** The statement's parameters (the jsonb ones as json text). */
export interface CommitParams {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  attempt: number;
  expectedCommitSeq: number | null;
  /** 1 when the commit changes state (the session version moves), else 0. */
  bump: number;
  stats: string | null;
  records: string;
  nextRefAtLeast: number;
  summaries: string;
  aliases: string;
  settle: string;
  frontier: string;
  metrics: string;
  stored: string;
}

export function commitParams(p: CommitParamsInput): CommitParams {
  const w = p.writes;
  const { tenantId: t, sessionId: s, flushRequestId: fr } = p;
  // The rows as the table mappers build them (version 0: the statement writes the guard's version);
  // jsonb_to_recordset reads the columns it names and ignores the rest.
  const rows = <T extends object>(list: T[]) => JSON.stringify(list.map(snakeKeys));
  return {
    tenantId: t,
    sessionId: s,
    flushRequestId: fr,
    attempt: p.attempt,
    expectedCommitSeq: p.expectedCommitSeq,
    bump: p.bump ? 1 : 0,
    stats: p.stats === null ? null : JSON.stringify(p.stats),
    records: rows(w.records.map((r) => recordToRow(t, s, 0, fr, r))),
    nextRefAtLeast: p.nextRefAtLeast,
    summaries: rows(w.summaries.map((x) => summaryToRow(t, s, 0, fr, x))),
    aliases: rows(w.aliases.map((a) => aliasToRow(t, s, 0, fr, a))),
    settle: rows(w.captures.map((c) => ({ key: c.key, status: c.status, reason: c.reason ?? null }))),
    frontier: rows(w.frontier ? [frontierToRow(t, s, 0, w.frontier)] : []),
    metrics: JSON.stringify(snakeKeys(flushMetricsValues(w.metrics))),
    stored: JSON.stringify(p.stored),
  };
}

const snakeNames = new Map<string, string>();
/** camelCase keys -> the snake_case column names (shallow: jsonb values such as `args` keep their keys). */
function snakeKeys(row: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    let name = snakeNames.get(k);
    if (name === undefined) {
      name = k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      snakeNames.set(k, name);
    }
    out[name] = v;
  }
  return out;
}
