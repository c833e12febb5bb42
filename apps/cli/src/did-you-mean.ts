/**
 * "Did you mean": the closest known word to a mistyped command, subcommand or flag, by edit distance
 * (Damerau-Levenshtein, optimal string alignment: a swapped pair of letters counts as one edit, as
 * in `sevre` for `serve`). Only close words are offered; a suggestion far from what was typed is noise.
 */

export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * A candidate the typed word abbreviates (`retent` for `retention`, 3+ letters) or extends by a
 * dash-separated part (`--grace-seconds` for `--grace`); else the nearest candidate within max(1,
 * 40% of the typed length) edits (ties: the first listed); else null.
 */
export function closestWord(typed: string, candidates: readonly string[]): string | null {
  const t = typed.toLowerCase();
  const bare = t.replace(/^-+/, "");
  const shape =
    (bare.length >= 3 ? candidates.find((c) => c.toLowerCase().startsWith(t) && c.toLowerCase() !== t) : undefined) ??
    candidates.find((c) => t.startsWith(`${c.toLowerCase()}-`));
  if (shape) return shape;
  const limit = Math.max(1, Math.ceil(typed.length * 0.4));
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const dist = editDistance(t, c.toLowerCase());
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  return best !== null && bestDistance <= limit && bestDistance > 0 ? best : null;
}

/** " (did you mean X?)" or "", to append to an error message. */
export function didYouMean(
  typed: string,
  candidates: readonly string[],
  render: (w: string) => string = (w) => w,
): string {
  const c = closestWord(typed, candidates);
  return c ? ` (did you mean ${render(c)}?)` : "";
}
