/**
 * The embedded service's tenant and API key. The client talks to the in-process API through the same
 * authenticated HTTP contract as a fleet client, so it needs a real key: one local tenant, and one key
 * minted on first start and kept in the data directory (mode 0600) for later starts.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { authenticateApiKey, createApiKey, ensureTenant, type Db } from "@condense/db";

export const LOCAL_TENANT = "local";

export async function localApiKey(db: Db, dataDir: string): Promise<string> {
  await ensureTenant(db, { id: LOCAL_TENANT, name: "local (embedded)" });
  const file = join(dataDir, "api-key");
  if (existsSync(file)) {
    const key = readFileSync(file, "utf8").trim();
    if (key && (await authenticateApiKey(db, key))) return key;
  }
  const created = await createApiKey(db, { tenantId: LOCAL_TENANT, label: "embedded" });
  writeFileSync(file, `${created.key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return created.key;
}
