/** The tenants table: one row per tenant (API keys: api-keys.ts). */
import { eq } from "drizzle-orm";
import type { Db } from "../client.ts";
import { NotFoundError } from "../errors.ts";
import { tenants } from "../schema/index.ts";

export interface Tenant {
  id: string;
  name: string;
  createdAt: Date;
  disabledAt: Date | null;
}

/** Idempotent: an existing tenant is returned unchanged. */
export async function ensureTenant(db: Db, input: { id: string; name?: string }): Promise<Tenant> {
  await db
    .insert(tenants)
    .values({ id: input.id, name: input.name ?? input.id })
    .onConflictDoNothing();
  const [row] = await db.select().from(tenants).where(eq(tenants.id, input.id));
  if (!row) throw new NotFoundError("tenant", input.id, "(deleted right after its insert)");
  return row;
}

export async function getTenant(db: Db, tenantId: string): Promise<Tenant | null> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, tenantId));
  return row ?? null;
}
