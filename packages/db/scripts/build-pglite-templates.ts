/**
 * The root `prepare` script's last step (run by `pnpm install`): makes the migrated PGlite templates
 * (the local service's directory template and `condense replay`'s tarball) ahead of need, so the
 * first `condense replay` or local service start on a fresh machine finds them instead of running an
 * initdb. The build runs in a child process (ensurePgliteTemplates). It only warns on failure: the
 * install goes on, and the first use makes the templates instead. Then the install's own cache drops
 * the templates of other keys (removeStaleTemplates).
 */
import { ensurePgliteTemplates, removeStaleTemplates, templateCacheDirs } from "../src/index.ts";

const started = Date.now();
try {
  const made = await ensurePgliteTemplates({ cacheDirs: templateCacheDirs() });
  const where = [made.dir, made.tarball].filter(Boolean).join(", ");
  console.log(
    `condense PGlite templates: ${made.built ? "built" : "found"} ${where} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  // The install's own cache (not the machine's $TMPDIR one, shared by every checkout): older keys go.
  const own = templateCacheDirs().find((d) => d.includes("/node_modules/.cache/"));
  const removed = own ? removeStaleTemplates(own) : [];
  if (removed.length > 0) console.log(`condense PGlite templates: removed stale ${removed.join(", ")}`);
} catch (err) {
  console.warn(`condense: no PGlite templates made at install (the first use makes them): ${(err as Error).message}`);
}
