/**
 * Whether the CLI's prebuilt bundle (scripts/bundle.mjs, run by `pnpm install`) may stand in for the
 * TypeScript source: the rule every prebuilt bundle of the repository follows (@condense/config's
 * prebuilt-freshness.mjs), here also only in the checkout that built it and while every third-party
 * file the bundle imports is still there.
 */
import { freshPrebuilt } from "@condense/config/prebuilt-freshness";

/**
 * `<cliDir>/.prebuilt/dist/main.js` when it is fresh, else null.
 * @param {string} cliDir the CLI package's directory (apps/cli)
 * @returns {string | null}
 */
export function freshCliBundle(cliDir) {
  return freshPrebuilt(cliDir, { outputs: ["dist/main.js"], sameCheckout: true });
}
