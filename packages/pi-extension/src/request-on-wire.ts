/**
 * When an HTTP request of this process has left for the network: pi's providers send through undici
 * (pi installs an undici dispatcher; Node's fetch is undici too), which reports on the
 * `undici:request:bodySent` diagnostics channel once a request's body has been written to its socket.
 * `before_provider_request` comes earlier, before the SDK has serialized and written the request, which
 * on a loaded host takes milliseconds more; work run there still sits in front of the request.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";

const BODY_SENT = "undici:request:bodySent";

/** Calls `onSent` each time a request's body is on the wire; returns the unsubscribe. */
export function watchRequestsOnWire(onSent: () => void): () => void {
  const listener = () => onSent();
  subscribe(BODY_SENT, listener);
  return () => {
    unsubscribe(BODY_SENT, listener);
  };
}
