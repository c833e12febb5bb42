/**
 * Replay progress on stderr. On a terminal: one bar redrawn in place (at most every 100 ms). Piped
 * or in CI: a plain line every 10% of the calls or every 5 seconds, whichever comes first, so logs
 * stay readable.
 */
import type { ReplayProgress } from "./replay-session.ts";

export interface ProgressReporter {
  update(p: ReplayProgress): void;
  done(): void;
}

const fmt = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

export function createProgress(
  write: (s: string) => void,
  isTTY: boolean,
  label: string,
  now: () => number = Date.now,
): ProgressReporter {
  let lastDraw = 0;
  let lastDecile = -1;
  let drawn = false;
  const line = (p: ReplayProgress) => {
    const saved = p.rawTokens > 0 ? Math.round((1 - p.condensedTokens / p.rawTokens) * 100) : 0;
    return `call ${p.call}/${p.calls} · flushes ${p.flushes} · context ${fmt(p.rawTokens)} -> ${fmt(p.condensedTokens)} tokens (-${saved}%)`;
  };
  return {
    update(p) {
      const t = now();
      if (isTTY) {
        if (t - lastDraw < 100 && p.call < p.calls) return;
        lastDraw = t;
        const width = 24;
        const filled = p.calls > 0 ? Math.round((p.call / p.calls) * width) : 0;
        write(`\r\x1b[2K${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${line(p)}`);
        drawn = true;
        return;
      }
      const decile = p.calls > 0 ? Math.floor((p.call / p.calls) * 10) : 0;
      if (decile > lastDecile || t - lastDraw >= 5000) {
        lastDecile = decile;
        lastDraw = t;
        write(`${label}: ${line(p)}\n`);
      }
    },
    done() {
      if (isTTY && drawn) write("\r\x1b[2K");
    },
  };
}
