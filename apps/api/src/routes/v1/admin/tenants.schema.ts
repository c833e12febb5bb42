/** Admin: tenant creation and API-key minting. */
import { z } from "@hono/zod-openapi";
import { StorableText } from "../../common.schema.ts";

export const TenantId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must match [a-z0-9][a-z0-9_-]{0,63}")
  .openapi({ param: { name: "tenantId", in: "path" }, example: "acme" });

export const CreateTenantBody = z
  .object({
    id: TenantId.optional().openapi({ description: "Chosen id; generated when absent." }),
    name: StorableText.pipe(z.string().min(1).max(200)),
  })
  .openapi("CreateTenantRequest");

export const TenantSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.string() }).openapi("Tenant");

export const CreateKeyBody = z.object({ label: StorableText.pipe(z.string().max(200)).optional() }).openapi("CreateApiKeyRequest");

export const CreatedKeySchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    prefix: z.string(),
    label: z.string(),
    key: z.string().openapi({ description: "The plaintext key. Shown once; only its sha256 is stored." }),
  })
  .openapi("CreatedApiKey");
