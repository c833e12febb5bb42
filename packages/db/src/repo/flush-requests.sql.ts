/**
 * The flush-request inserts of flush-requests.ts, one statement each (statement.ts: named parameters,
 * fixed text): every flush starts with one of them (the API's POST /flushes, the CLI and embedded
 * hosts), so the session check or insert, the settings snapshot and the cursor (the session's highest
 * capture seq) go in one round trip. No row back when a request with this id exists already (a retried
 * POST) or, for the API's statement, when the session is missing.
 */
import { statement } from "../statement.ts";

const REQUEST_COLUMNS =
  "id, tenant_id, session_id, trigger, metrics, chains, settings, cursor, status, requested_at, completed_at, committed_version, result, chains_result, coalesced_into";

interface CreateRequestParams {
  tenantId: string;
  sessionId: string;
  /** A fresh session's stats (json text). */
  emptyStats: string;
  /** A client-chosen request id, or null for a fresh one. */
  id: string | null;
  trigger: string;
  /** json text. */
  metrics: string;
  chains: string;
  settings: string;
  /** Whether the request brings settings (they then become the session's snapshot too). */
  withSettings: boolean;
}

/**
 * The session insert and the request insert in one statement; the request's foreign key is checked
 * at the end of the statement, after the session row is in. Settings sent with the request become
 * the session's snapshot, as `ensureSession` does; without them an existing session is left as it is.
 */
export const CREATE_REQUEST = statement<CreateRequestParams>(`
with s as (
  insert into sessions (tenant_id, session_id, settings, stats) values (:tenantId, :sessionId, :settings::jsonb, :emptyStats::jsonb)
  on conflict (tenant_id, session_id) do update set settings = excluded.settings, updated_at = now() where :withSettings::boolean
  returning 1
)
insert into flush_requests (id, tenant_id, session_id, trigger, metrics, chains, settings, cursor)
select coalesce(:id::uuid, gen_random_uuid()), :tenantId, :sessionId, :trigger, :metrics::jsonb, :chains::jsonb, :settings::jsonb,
  (select coalesce(max(c.seq), 0) from captures c where c.tenant_id = :tenantId and c.session_id = :sessionId)
on conflict (id) do nothing
returning ${REQUEST_COLUMNS}`);

type CreateRequestForSessionParams = Omit<CreateRequestParams, "emptyStats">;

/**
 * The session's stored settings (its existence check), its settings snapshot when the request brings
 * settings, and the request with cursor = the session's highest capture seq.
 */
export const CREATE_REQUEST_FOR_SESSION = statement<CreateRequestForSessionParams>(`
with s as (
  select settings from sessions where tenant_id = :tenantId and session_id = :sessionId
), u as (
  update sessions set settings = :settings::jsonb, updated_at = now()
  where tenant_id = :tenantId and session_id = :sessionId and :withSettings::boolean
  returning 1
)
insert into flush_requests (id, tenant_id, session_id, trigger, metrics, chains, settings, cursor)
select coalesce(:id::uuid, gen_random_uuid()), :tenantId, :sessionId, :trigger, :metrics::jsonb, :chains::jsonb,
  case when :withSettings::boolean then :settings::jsonb else s.settings end,
  (select coalesce(max(c.seq), 0) from captures c where c.tenant_id = :tenantId and c.session_id = :sessionId)
from s
on conflict (id) do nothing
returning ${REQUEST_COLUMNS}`);

/** One request of a tenant by id: the locked flush commit's read (flush-commit.ts). */
export const REQUEST_BY_ID = statement<{ tenantId: string; id: string }>(
  `select ${REQUEST_COLUMNS} from flush_requests where tenant_id = :tenantId and id = :id::uuid`,
);
