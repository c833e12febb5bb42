/**
 * Message sizes (JSON length) for the context metrics, kept per message object: a branch only grows,
 * and pi never changes a message once it has ended, so each message is serialized once per session
 * instead of once per flush request and metrics refresh.
 */
import { jsonLength, type AgentMessage, type SizeOf } from "@condense/core";

export function messageSizes(): SizeOf {
  const sizes = new WeakMap<object, number>();
  return (m: AgentMessage) => {
    if (typeof m !== "object" || m === null) return jsonLength(m);
    let n = sizes.get(m);
    if (n === undefined) {
      n = jsonLength(m);
      sizes.set(m, n);
    }
    return n;
  };
}
