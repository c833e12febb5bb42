/** Captured work (CAP-CAPTURE-2/3): what the client sends and the worker summarizes. */

export interface CapturedToolCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** Joined text parts; the literal `(no result)` when no result exists. */
  resultText: string;
  isError: boolean;
  resultTimestamp?: number;
  /** Set only by the service (hashed from the stored text at ingest); a client never supplies it. */
  contentHash?: string;
}

export interface CapturedBatch {
  turnIndex: number;
  /** Batch-level timestamp, shared by its calls; never an identity (CAP-CAPTURE-4). */
  timestamp: number;
  assistantText: string;
  toolCalls: CapturedToolCall[];
  /** Rescan only: the user-turn-group the batch belongs to (CAP-CAPTURE-7). */
  userTurnGroup?: number;
}
