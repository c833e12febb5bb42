/**
 * Every UI call goes through here. In print and JSON mode there is no UI (`hasUI` false, the methods
 * are no-ops), after a session replacement a captured ctx throws, and a footer update must never be
 * able to break a turn: so each call is checked and wrapped. Headless, notices go to stderr (stdout
 * belongs to the agent's own output, e.g. the JSON event stream).
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { extensionConfig } from "./extension-config.ts";

export const STATUS_KEY = "condense";

export type NoticeLevel = "info" | "warning" | "error";

export function notify(ctx: ExtensionContext | undefined, text: string, level: NoticeLevel = "info"): void {
  try {
    if (ctx?.hasUI) ctx.ui.notify(text, level);
    else if (!extensionConfig().quiet) process.stderr.write(`${text}\n`);
  } catch {
    /* a stale or UI-less context: the notice is informational only */
  }
}

/** Footer status line; `undefined` clears it. */
export function setStatus(ctx: ExtensionContext | undefined, text: string | undefined): void {
  try {
    if (ctx?.hasUI) ctx.ui.setStatus(STATUS_KEY, text);
  } catch {
    /* see notify */
  }
}

/** False in print, JSON and RPC mode (and for a stale ctx): there is no footer to compute text for. */
export function hasUI(ctx: ExtensionContext | undefined): boolean {
  try {
    return ctx?.hasUI === true;
  } catch {
    return false;
  }
}
