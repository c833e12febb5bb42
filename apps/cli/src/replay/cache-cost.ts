/**
 * Cache-aware input cost of a sequence of requests, as a prompt-caching provider bills them: the
 * part of a request that repeats the previous request's prefix is a cache read; the rest is written
 * to the cache. Appending to an unchanged history is all reads but the new tail; when Condense
 * rewrites history (a flush lands and stubs replace results) the prefix breaks at the first changed
 * message and everything after it is written again. Cache expiry and minimum cacheable sizes are
 * ignored (an agent loop calls the model far more often than a 5-minute TTL).
 */
import { messageChars, tokensOfChars, type AgentMessage } from "@condense/core";
import type { ModelPrice } from "./price-model.ts";

export interface CacheTally { requests: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number; costUsd: number }

const jsonOf = new WeakMap<object, string>();
function sameMessage(a: AgentMessage, b: AgentMessage): boolean {
  if (a === b) return true;
  const ja = jsonOf.get(a) ?? JSON.stringify(a);
  jsonOf.set(a, ja);
  const jb = jsonOf.get(b) ?? JSON.stringify(b);
  jsonOf.set(b, jb);
  return ja === jb;
}

export class CacheCostMeter {
  private previous: readonly AgentMessage[] = [];
  readonly tally: CacheTally = { requests: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, costUsd: 0 };

  constructor(private readonly price: ModelPrice) {}

  /** One request with `messages` as its context; returns the tokens it read from and wrote to the cache. */
  request(messages: readonly AgentMessage[], totalChars: number): { read: number; write: number } {
    let prefixChars = 1; // the array's "["
    const n = Math.min(messages.length, this.previous.length);
    let i = 0;
    for (; i < n; i++) {
      if (!sameMessage(messages[i]!, this.previous[i]!)) break;
      prefixChars += messageChars(messages[i]) + 1;
    }
    const total = tokensOfChars(totalChars);
    const read = i === 0 ? 0 : Math.min(total, tokensOfChars(prefixChars));
    const write = total - read;
    this.previous = messages.slice();
    this.tally.requests++;
    this.tally.cacheReadTokens += read;
    this.tally.cacheWriteTokens += write;
    this.tally.costUsd += (read * this.price.cacheRead + write * this.price.cacheWrite) / 1e6;
    return { read, write };
  }

  /** The model's answer: billed identically with and without Condense. */
  output(message: AgentMessage): void {
    const t = tokensOfChars(messageChars(message));
    this.tally.outputTokens += t;
    this.tally.costUsd += (t * this.price.output) / 1e6;
  }
}
