/**
 * Short-ref minting from the session counter (CAP-REF-1). Runs only inside a transaction that holds
 * the session lock, so the counter read and its advance cannot interleave with another writer.
 */
export interface MintedRefs {
  /** Refs per requested group, aligned with the request (group i, key j -> groups[i][j]). */
  groups: string[][];
  /** Occurrence key -> minted ref. */
  byKey: ReadonlyMap<string, string>;
  /** The counter before and after minting; numbers in between are used or burned, never reused. */
  firstRef: number;
  nextRef: number;
}

export function mintRefs(nextRef: number, request: readonly (readonly string[])[]): MintedRefs {
  let n = nextRef;
  const byKey = new Map<string, string>();
  const groups = request.map((keys) =>
    keys.map((key) => {
      const ref = `t${n++}`;
      byKey.set(key, ref);
      return ref;
    }),
  );
  return { groups, byKey, firstRef: nextRef, nextRef: n };
}
