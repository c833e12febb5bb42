/**
 * Cache-aware input cost of a sequence of requests, as a prompt-caching provider bills them: the
 * part of a request that repeats the previous request's prefix is a cache read; the rest is written
 * to the cache. Appending to an unchanged history is all reads but the new tail; when Condense
 * rewrites history (a flush lands and stubs replace results) the prefix breaks at the first changed
 * message and everything after it is written again. A request made more than the cache TTL after
 * the previous one finds the cache expired and writes everything (the session's own timestamps
 * decide; untimed formats are a second apart and never expire). Minimum cacheable sizes are ignored.
 */
import { messageChars, tokensOfChars, type AgentMessage } from "@condense/core";
import type { ModelPrice } from "./price-model.ts";

export interface CacheTally {
  requests: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  costUsd: number;
}

const jsonOf = new WeakMap<object, string>();
function sameMessage(a: AgentMessage, b: AgentMessage): boolean {
  if (a === b) return true;
  const ja = jsonOf.get(a) ?? JSON.stringify(a);
  jsonOf.set(a, ja);
  const jb = jsonOf.get(b) ?? JSON.stringify(b);
  jsonOf.set(b, jb);
  return ja === jb;
}

export interface CallCost {
  read: number;
  write: number;
  costUsd: number;
  cold: boolean;
}

export class CacheCostMeter {
  private previous: readonly AgentMessage[] = [];
  private lastAt: number | null = null;
  readonly tally: CacheTally = { requests: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, costUsd: 0 };
  /** Per request: tokens read and written, input cost, and whether the TTL had expired. */
  readonly perCall: CallCost[] = [];

  constructor(
    private readonly price: ModelPrice,
    private readonly ttlMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Price of a token not read from the cache: written, or plain input where the provider writes for free. */
  private get writePrice(): number {
    return this.price.cacheWrite > 0 ? this.price.cacheWrite : this.price.input;
  }

  /** One request with `messages` as its context, made at `at`; returns the tokens it read from and wrote to the cache. */
  request(messages: readonly AgentMessage[], totalChars: number, at?: number): CallCost {
    const expired = at !== undefined && this.lastAt !== null && at - this.lastAt > this.ttlMs;
    if (at !== undefined) this.lastAt = at;
    if (expired) this.previous = [];
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
    const costUsd = (read * this.price.cacheRead + write * this.writePrice) / 1e6;
    this.tally.costUsd += costUsd;
    const call = { read, write, costUsd, cold: expired };
    this.perCall.push(call);
    return call;
  }

  /** The model's answer: billed identically with and without Condense. */
  output(message: AgentMessage): number {
    const t = tokensOfChars(messageChars(message));
    this.tally.outputTokens += t;
    this.tally.costUsd += (t * this.price.output) / 1e6;
    const last = this.perCall[this.perCall.length - 1];
    if (last) last.costUsd += (t * this.price.output) / 1e6;
    return t;
  }
}
