/** Bisection over an ascending array of numbers. */

/** The first index in ascending `xs` whose value is not below `x` (`xs.length` when every value is). */
export function lowerBound(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `lowerBound` over values reached through positions: the first index k of `at` whose value `xs[at[k]]`
 * is not below `x`, where `at` lists positions of `xs` in ascending order of their values.
 */
export function lowerBoundAt(xs: ArrayLike<number>, at: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[at[mid]!]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
