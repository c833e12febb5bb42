/**
 * The payloads of the service's jobs (API -> queue -> worker). "flush-session" carries a cursor, never
 * data: the worker loads the session's pending captures up to `cursor` from Postgres, so "latest
 * payload wins" deduplication loses nothing. "compress-chains" names the flush request whose chains to commit.
 */
import { z } from "zod";

const sessionRef = {
  tenantId: z.string().min(1),
  sessionId: z.string().min(1),
  flushRequestId: z.string().uuid(),
};

export const FlushSessionPayload = z.object({
  ...sessionRef,
  /** The highest capture seq the flush includes. */
  cursor: z.number().int().nonnegative(),
});
export type FlushSessionPayload = z.output<typeof FlushSessionPayload>;

export const CompressChainsPayload = z.object(sessionRef);
export type CompressChainsPayload = z.output<typeof CompressChainsPayload>;
