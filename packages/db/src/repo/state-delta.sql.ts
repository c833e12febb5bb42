/**
 * A state delta in ONE statement (state-delta.ts), with named parameters (statement.ts): the session's
 * version and stats, and, for the window since < version <= the session's version, every state table's
 * rows as a jsonb array of row images keyed like drizzle's rows (camelCase), in seq order, plus the
 * skipped captures the commits in the window settled. One snapshot, so the rows are exactly those of
 * the version read. No row when the session does not exist. `since` is normalized as the API takes it:
 * beyond the session's version or negative gives 0 (a full snapshot), else its floor.
 */
import { statement } from "../statement.ts";

interface StateDeltaParams {
  tenantId: string;
  sessionId: string;
  since: number;
}

export const STATE_DELTA = statement<StateDeltaParams>(`
select s.version, s.stats, s.stats_version, w.since,
  (select coalesce(jsonb_agg(jsonb_build_object(
      'key', r.key, 'toolCallId', r.tool_call_id, 'toolName', r.tool_name, 'args', r.args, 'resultText', r.result_text,
      'isError', r.is_error, 'turnIndex', r.turn_index, 'batchTimestamp', r.batch_timestamp,
      'resultTimestamp', r.result_timestamp, 'shortRef', r.short_ref, 'contentHash', r.content_hash,
      'storedBytes', r.stored_bytes, 'storedPreview', r.stored_preview, 'summaryId', r.summary_id,
      'backfilled', r.backfilled) order by r.seq), '[]'::jsonb)
    from tool_call_records r
    where r.tenant_id = s.tenant_id and r.session_id = s.session_id and r.version > w.since and r.version <= s.version
  ) as records,
  (select coalesce(jsonb_agg(jsonb_build_object(
      'id', m.id, 'text', m.text, 'refs', m.refs, 'coverage', m.coverage, 'toolNames', m.tool_names,
      'turnIndex', m.turn_index, 'timestamp', m.timestamp) order by m.seq), '[]'::jsonb)
    from summaries m
    where m.tenant_id = s.tenant_id and m.session_id = s.session_id and m.version > w.since and m.version <= s.version
  ) as summaries,
  (select coalesce(jsonb_agg(jsonb_build_object('key', a.key, 'originalKey', a.original_key) order by a.seq), '[]'::jsonb)
    from dedup_aliases a
    where a.tenant_id = s.tenant_id and a.session_id = s.session_id and a.version > w.since and a.version <= s.version
  ) as aliases,
  (select coalesce(jsonb_agg(jsonb_build_object(
      'blockId', c.block_id, 'startUserTimestamp', c.start_user_timestamp,
      'finalAssistantTimestamp', c.final_assistant_timestamp, 'droppedToolCallIds', c.dropped_tool_call_ids,
      'droppedOccurrenceKeys', c.dropped_occurrence_keys, 'protectedToolCallIds', c.protected_tool_call_ids,
      'toolRefs', c.tool_refs, 'compressedAt', c.compressed_at, 'rangeSummaryText', c.range_summary_text,
      'bodySource', c.body_source) order by c.seq), '[]'::jsonb)
    from chains c
    where c.tenant_id = s.tenant_id and c.session_id = s.session_id and c.version > w.since and c.version <= s.version
  ) as chains,
  (select jsonb_build_object(
      'lastAttemptedToolCallId', f.last_attempted_tool_call_id, 'lastAttemptedToolName', f.last_attempted_tool_name,
      'lastAttemptedTurnIndex', f.last_attempted_turn_index, 'lastAttemptedTimestamp', f.last_attempted_timestamp,
      'attemptedBatchCount', f.attempted_batch_count, 'attemptedToolCallCount', f.attempted_tool_call_count,
      'rawCharCount', f.raw_char_count, 'summaryCharCount', f.summary_char_count, 'outcome', f.outcome)
    from frontiers f
    where f.tenant_id = s.tenant_id and f.session_id = s.session_id and f.version > w.since and f.version <= s.version
  ) as frontier,
  (select coalesce(jsonb_agg(k.occurrence_key order by k.seq), '[]'::jsonb)
    from flush_requests q
    join captures k on k.tenant_id = q.tenant_id and k.session_id = q.session_id and k.settled_by = q.id and k.status = 'skipped'
    where q.tenant_id = s.tenant_id and q.session_id = s.session_id
      and q.committed_version > w.since and q.committed_version <= s.version
  ) as settled
from sessions s
cross join lateral (
  select case when :since::float8 > s.version or :since::float8 < 0 then 0 else floor(:since::float8)::bigint end as since
) w
where s.tenant_id = :tenantId and s.session_id = :sessionId`);
