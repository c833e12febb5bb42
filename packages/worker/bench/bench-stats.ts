/** Clock and percentile helpers shared by bench:worker's parts (one clock, so their timestamps compare). */

/** Epoch ms with sub-ms resolution: comparable across the bench's parts and with the workers' traces. */
export const hr = () => performance.timeOrigin + performance.now();

/** The p-th percentile (0-100) of xs, nearest rank below; NaN for no samples. */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
