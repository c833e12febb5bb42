/** A tenant and an API key of it, made through the admin routes of a running server. */
export async function tenantOverHttp(
  url: string,
  adminKey: string,
  tenant: { id: string; name: string },
): Promise<{ key: string; headers: Record<string, string> }> {
  const admin = { authorization: `Bearer ${adminKey}`, "content-type": "application/json" };
  const created = await fetch(`${url}/v1/admin/tenants`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify(tenant),
  });
  if (!created.ok) throw new Error(`creating tenant ${tenant.id} answered ${created.status}: ${await created.text()}`);
  const issued = await fetch(`${url}/v1/admin/tenants/${tenant.id}/keys`, {
    method: "POST",
    headers: admin,
    body: "{}",
  });
  if (!issued.ok) throw new Error(`issuing a key of ${tenant.id} answered ${issued.status}: ${await issued.text()}`);
  const { key } = (await issued.json()) as { key: string };
  return { key, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } };
}
