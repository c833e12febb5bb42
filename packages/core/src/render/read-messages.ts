/**
 * The render's one reading pass over its input: each message's kind and timestamp (the `Rendering`
 * every phase works on), and, when the render measures, its size (message-size.ts), all taken while
 * the message is being read. pi hands over a fresh clone before every call, so every object of the
 * input is new to the render and touching it is what a cold render pays for; reading it once, instead
 * of once per phase and once more to measure it, is what keeps a cold render close to a warm one.
 */
import { kindOf, timestampOf, type Rendering } from "./message-shape.ts";
import { coverInput, sizeInPass, type SizeMemo } from "./message-size.ts";

export interface InputReading {
  readonly rendering: Rendering;
  /** Per input position, its JSON length; null when the render does not measure. */
  readonly sizes: Float64Array | null;
}

export function readMessages(messages: readonly unknown[], sizeMemo: SizeMemo | null): InputReading {
  const n = messages.length;
  const kinds = new Uint8Array(n);
  const timestamps = new Float64Array(n);
  const sizes = sizeMemo ? new Float64Array(n) : null;
  if (sizeMemo) coverInput(sizeMemo, n);
  /** the message's position among adjacent messages sharing its timestamp (the size memo's `run`) */
  let run = 0;
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    kinds[i] = kindOf(m);
    const ts = timestampOf(m);
    timestamps[i] = ts;
    run = i > 0 && ts === timestamps[i - 1] ? run + 1 : 0;
    if (sizes && sizeMemo) sizes[i] = sizeInPass(sizeMemo, m, run, i);
  }
  return { rendering: { messages, kinds, timestamps }, sizes };
}
