/**
 * Why a flush is requested: a context budget, a growth delta, the end of an assistant message, a user
 * command, a rearmed trigger, or the cost policy (roi). Core decides them, the client sends them, the
 * API validates and echoes them, the worker records them. No zod here (the client imports it at run time).
 */
export const FLUSH_TRIGGERS = ["budget", "delta", "message-end", "manual", "rearmed", "roi"] as const;
export type FlushTrigger = (typeof FLUSH_TRIGGERS)[number];
