/**
 * The audit line of an admin operation on keys: who (the admin credential's fingerprint, never the
 * key, and the caller's user agent), what (action), on which tenant and key id. One structured log
 * line per operation, beside the request's wide event, so `grep '"audit"'` finds every change.
 */
import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { AppEnv } from "../../../app-env.ts";

export type KeyAuditAction = "api_key.create" | "api_key.list" | "api_key.revoke" | "api_key.rotate";

/** First 12 hex chars of sha256(admin key): tells two admin credentials apart without revealing either. */
export function adminFingerprint(adminKey: string): string {
  return createHash("sha256").update(adminKey).digest("hex").slice(0, 12);
}

export function auditKeyOperation(
  c: Context<AppEnv>,
  adminKey: string,
  entry: { action: KeyAuditAction; tenantId: string; keyId?: string; [k: string]: unknown },
): void {
  c.get("log").info(
    {
      audit: {
        ...entry,
        actor: {
          kind: "admin_key",
          fingerprint: adminFingerprint(adminKey),
          userAgent: c.req.header("user-agent") ?? null,
        },
      },
    },
    entry.action,
  );
}
