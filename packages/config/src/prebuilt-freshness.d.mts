/** What makes a prebuilt bundle fresh (prebuilt-freshness.mjs). */
export interface PrebuiltCheck {
  /** The bundle's files, relative to <packageDir>/.prebuilt; the first is the entry returned. */
  outputs: string[];
  /** Fresh only in the checkout that built it and while every external file it imports exists. */
  sameCheckout?: boolean;
}

export function freshPrebuilt(packageDir: string, check: PrebuiltCheck): string | null;
