/** Admin: listing, revoking and rotating a tenant's API keys. */
import { z } from "@hono/zod-openapi";
import { TenantId } from "./tenants.schema.ts";

export const KeyId = z
  .string()
  .uuid()
  .openapi({
    param: { name: "keyId", in: "path" },
    description: "The key's id (from the key listing or the create response).",
    example: "7d0f3a52-1c1e-4c55-9a39-0f4f3b8e2f61",
  });

export const KeyParams = z.object({ tenantId: TenantId, keyId: KeyId });

export const ApiKeySchema = z
  .object({
    id: z
      .string()
      .describe("The key's id; use it to revoke or rotate the key.")
      .openapi({ example: "7d0f3a52-1c1e-4c55-9a39-0f4f3b8e2f61" }),
    tenantId: z.string().describe("The tenant the key authenticates as.").openapi({ example: "acme" }),
    prefix: z
      .string()
      .describe("The first characters of the key, to tell keys apart (the secret itself is never stored).")
      .openapi({ example: "ck_Xq3v9a" }),
    label: z.string().describe("Free text given at creation (carried over by rotation).").openapi({ example: "ci" }),
    createdAt: z
      .string()
      .describe("When the key was minted (ISO 8601).")
      .openapi({ example: "2026-12-01T20:00:00.000Z" }),
    revokedAt: z
      .string()
      .nullable()
      .describe("When the key stopped, or (status expiring) will stop, working; null for an active key.")
      .openapi({ example: null }),
    status: z
      .enum(["active", "expiring", "revoked"])
      .describe("active: works; expiring: rotated, works until revokedAt; revoked: refused with 401."),
  })
  .openapi("ApiKey");

export const ApiKeyList = z
  .object({ keys: z.array(ApiKeySchema).describe("Every key of the tenant, oldest first, revoked ones included.") })
  .openapi("ApiKeyList");

export const RevokedKeySchema = z
  .object({
    id: z.string().describe("The revoked key's id.").openapi({ example: "7d0f3a52-1c1e-4c55-9a39-0f4f3b8e2f61" }),
    tenantId: z.string().describe("The tenant the key belonged to.").openapi({ example: "acme" }),
    revokedAt: z
      .string()
      .describe("When the key stopped working (now).")
      .openapi({ example: "2026-12-01T20:05:00.000Z" }),
  })
  .openapi("RevokedApiKey");

export const RotateKeyBody = z
  .object({
    graceSeconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 24 * 3600)
      .optional()
      .describe(
        "How long the old key keeps working after rotation, in seconds (0, the default: it stops at once; at most 30 days).",
      )
      .openapi({ example: 3600 }),
  })
  .openapi("RotateApiKeyRequest", { example: { graceSeconds: 3600 } });

export const RotatedKeySchema = z
  .object({
    key: z
      .string()
      .describe("The new plaintext key. Shown once; only its sha256 is stored.")
      .openapi({ example: "ck_Xq3v9aT1nB8w2kLmP0sR5uYzC7dE4fGhJ6iK9oQaB3c" }),
    id: z.string().describe("The new key's id.").openapi({ example: "0c2b9a8e-4e5f-4a11-8d2c-6b7a1e3f9d00" }),
    tenantId: z.string().describe("The tenant both keys belong to.").openapi({ example: "acme" }),
    prefix: z.string().describe("The new key's first characters.").openapi({ example: "ck_Xq3v9a" }),
    label: z.string().describe("The label, carried over from the old key.").openapi({ example: "ci" }),
    replaced: z
      .object({
        id: z.string().describe("The old key's id.").openapi({ example: "7d0f3a52-1c1e-4c55-9a39-0f4f3b8e2f61" }),
        revokedAt: z
          .string()
          .describe("When the old key stops working: now, or now + graceSeconds.")
          .openapi({ example: "2026-12-01T21:05:00.000Z" }),
      })
      .describe("The key this one replaces."),
  })
  .openapi("RotatedApiKey");
