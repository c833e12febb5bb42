/**
 * Hands the service the model this session's agent summarizes with (PUT /v1/sessions/{id}/summarizer),
 * for a local service that summarizes with the agent's own model and key. The host resolves the
 * hand-off (pi: its model registry and auth); this module sends it, one at a time, newest wins, and
 * says whether flush requests should tell the service to expect one (so a service that lost it in a
 * restart refuses the flush with 409 `summarizer_not_handed_off` instead of using another model).
 */
import type { ErrorCode, SummarizerHandOffAnswer } from "@condense/contract";
import type { Transport } from "./transport.ts";

/**
 * The route's body (`SummarizerHandOff` in the contract), loosely typed: the host builds the models from
 * its own registry and the API validates them; null: nothing to hand off.
 */
export type SummarizerHandOffBody = Record<string, unknown> & {
  primary: unknown;
  fallback: unknown;
  notices: string[];
};
export type ResolveHandOff = () => Promise<SummarizerHandOffBody | null>;

export interface HandOffResult {
  sent: boolean;
  primary?: string;
  fallback?: string | null;
  notices: string[];
  error?: string;
}

export const NOT_HANDED_OFF = "summarizer_not_handed_off" satisfies ErrorCode;

export class SummarizerHandOff {
  private inFlight: Promise<HandOffResult> | null = null;
  private again = false;
  /** A hand-off was accepted at least once: flushes ask the service to hold it. */
  private handedOff = false;

  constructor(
    private readonly transport: Transport,
    private readonly sessionPath: string,
    private readonly resolve: ResolveHandOff,
  ) {}

  get active(): boolean {
    return this.handedOff;
  }

  /** Resolve and send now; a call while one is in flight runs once more after it (the newest state wins). */
  send(): Promise<HandOffResult> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    const run = async (): Promise<HandOffResult> => {
      let result: HandOffResult;
      do {
        this.again = false;
        result = await this.sendOnce();
      } while (this.again);
      return result;
    };
    this.inFlight = run().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async sendOnce(): Promise<HandOffResult> {
    let body: SummarizerHandOffBody | null;
    try {
      body = await this.resolve();
    } catch (err) {
      return {
        sent: false,
        notices: [],
        error: `could not resolve the summarizer model: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    if (!body) {
      // Nothing to hand off (no active model, or the deterministic summarizer was chosen).
      this.handedOff = false;
      return { sent: false, notices: [] };
    }
    try {
      const r = await this.transport.request<SummarizerHandOffAnswer>("PUT", `${this.sessionPath}/summarizer`, body);
      this.handedOff = true;
      return { sent: true, primary: r.primary, fallback: r.fallback, notices: r.notices };
    } catch (err) {
      return { sent: false, notices: body.notices, error: err instanceof Error ? err.message : String(err) };
    }
  }
}
