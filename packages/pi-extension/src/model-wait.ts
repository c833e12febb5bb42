/**
 * The moments a pi agent waits on its model, as the client's background schedule
 * (@condense/client's ScheduleBackground). Sending a capture, spooling it and building a flush request
 * are asked for at turn_end, a few milliseconds before pi sends the next LLM request: run then, they
 * would sit between one agent step and the next on pi's thread, and the local service would take the
 * capture on the host's CPUs at the very moment pi builds its request. So the work is held until pi has
 * handed that request to its provider (`before_provider_request`) and the request is on the wire
 * (request-on-wire.ts), and runs just after, while the model works. A provider whose request no
 * channel reports releases it `SEND_LIMIT_MS` after the hand-over. Work is released as well when the
 * agent ends or the session shuts down, and after `HOLD_LIMIT_MS` at the latest, so nothing waits on a
 * request that does not come (a turn that ends the run, a command outside a run).
 */

/** The longest a piece of background work waits for pi's next request. */
const HOLD_LIMIT_MS = 250;
/** After the hand-over to the provider, the longest wait for its request to be reported on the wire. */
const SEND_LIMIT_MS = 100;

export class ModelWait {
  private held: (() => void)[] = [];
  private limit: NodeJS.Timeout | null = null;
  /** pi handed a request to its provider: the held work goes once it is on the wire. */
  private sending: NodeJS.Timeout | null = null;
  private releasing = false;

  /** The client's background schedule: hold `work` until the next request is out. */
  readonly schedule = (work: () => void): void => {
    this.held.push(work);
    if (this.limit) return;
    this.limit = setTimeout(() => this.release(), HOLD_LIMIT_MS);
    this.limit.unref?.();
  };

  /** `before_provider_request`: the provider is about to serialize and send the request. */
  requestHandedOver(): void {
    if (this.held.length === 0 || this.sending || this.releasing) return;
    this.sending = setTimeout(() => this.release(), SEND_LIMIT_MS);
    this.sending.unref?.();
  }

  /**
   * A request's body is on the wire: when pi was sending one, the held work runs on the next
   * event-loop turn (never inside the HTTP client's own write).
   */
  requestOnWire(): void {
    if (!this.sending || this.releasing) return;
    this.releasing = true;
    setImmediate(() => this.release());
  }

  /** Run everything held now (the request is out, the agent ended, the session shuts down, or a limit passed). */
  release(): void {
    this.releasing = false;
    if (this.limit) clearTimeout(this.limit);
    if (this.sending) clearTimeout(this.sending);
    this.limit = null;
    this.sending = null;
    const work = this.held;
    this.held = [];
    // Each piece runs even when one before it throws; the first error is rethrown after all have run.
    let failed: { error: unknown } | null = null;
    for (const w of work) {
      try {
        w();
      } catch (error) {
        failed ??= { error };
      }
    }
    if (failed) throw failed.error;
  }
}
