/**
 * @condense/contract/vocabulary: the contract's runtime constants without zod (error codes, flush
 * triggers), for code that must not load zod: the agent-side client, core. Nothing here imports anything.
 */
export {
  API_ERROR_CODES,
  TRANSPORT_ERROR_CODES,
  ERROR_CODES,
  codeToStatus,
  statusToCode,
  isErrorCode,
  errorCodeOf,
  type ApiErrorCode,
  type TransportErrorCode,
  type ErrorCode,
  type ErrorStatus,
} from "./vocabulary/error-codes.ts";
export { FLUSH_TRIGGERS, type FlushTrigger } from "./vocabulary/flush-triggers.ts";
