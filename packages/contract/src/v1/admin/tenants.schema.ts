/** Admin: tenant creation and API-key minting. */
import { z } from "@hono/zod-openapi";
import { StorableText } from "../common.schema.ts";

export const TenantId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must match [a-z0-9][a-z0-9_-]{0,63}")
  .openapi({
    param: { name: "tenantId", in: "path" },
    description: "The tenant's id: lowercase letters, digits, `_` or `-`, up to 64 characters.",
    example: "acme",
  });

export const CreateTenantBody = z
  .object({
    id: TenantId.optional().openapi({ description: "Chosen id; generated when absent." }),
    name: StorableText.pipe(z.string().min(1).max(200))
      .describe("Display name (1 to 200 characters).")
      .openapi({ example: "Acme Inc" }),
  })
  .openapi("CreateTenantRequest", { example: { id: "acme", name: "Acme Inc" } });

export const TenantSchema = z
  .object({
    id: z.string().describe("The tenant's id.").openapi({ example: "acme" }),
    name: z.string().describe("Display name.").openapi({ example: "Acme Inc" }),
    createdAt: z
      .string()
      .describe("When the tenant was created (ISO 8601).")
      .openapi({ example: "2026-12-01T20:00:00.000Z" }),
  })
  .openapi("Tenant");

export const CreateKeyBody = z
  .object({
    label: StorableText.pipe(z.string().max(200))
      .optional()
      .describe("Free text to tell keys apart (up to 200 characters); optional.")
      .openapi({ example: "ci" }),
  })
  .openapi("CreateApiKeyRequest", { example: { label: "ci" } });

export const CreatedKeySchema = z
  .object({
    id: z.string().describe("The key's id; use it to list, revoke or rotate the key."),
    tenantId: z.string().describe("The tenant the key authenticates as."),
    prefix: z.string().describe("The key's first characters, shown in listings."),
    label: z.string().describe("The label given at creation."),
    key: z.string().openapi({ description: "The plaintext key. Shown once; only its sha256 is stored." }),
  })
  .openapi("CreatedApiKey");
