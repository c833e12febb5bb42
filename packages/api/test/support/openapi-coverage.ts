/**
 * Walks an OpenAPI 3.1 document for what a reader needs to build a request: every schema property
 * (components and inline, nested objects and array items included) and every parameter has a
 * description, and every request body has an example.
 */
type Json = Record<string, any>;

let components: Record<string, Json> = {};
const refDescribed = (ref: string) => Boolean(components[ref.split("/").pop() ?? ""]?.description);

function walkSchema(schema: Json | undefined, at: string, out: string[], seen: Set<Json>): void {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return;
  seen.add(schema);
  if (schema.$ref) return; // checked where the component is defined
  for (const [name, prop] of Object.entries<Json>(schema.properties ?? {})) {
    const p = `${at}.${name}`;
    // A $ref property carries its description beside the $ref (OpenAPI 3.1) or in the component.
    if (!prop.description && !(prop.$ref && refDescribed(prop.$ref))) {
      const viaAllOf = Array.isArray(prop.allOf) && prop.allOf.some((s: Json) => s.description);
      if (!viaAllOf) out.push(p);
    }
    walkSchema(prop, p, out, seen);
  }
  if (schema.items) walkSchema(schema.items, `${at}[]`, out, seen);
  for (const k of ["anyOf", "oneOf", "allOf"])
    for (const [i, s] of (schema[k] ?? []).entries()) walkSchema(s, `${at}.${k}${i}`, out, seen);
  if (schema.additionalProperties && typeof schema.additionalProperties === "object")
    walkSchema(schema.additionalProperties, `${at}{}`, out, seen);
}

export function undescribedFields(doc: Json): string[] {
  const out: string[] = [];
  const seen = new Set<Json>();
  components = doc.components?.schemas ?? {};
  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {}))
    walkSchema(schema, `#/components/schemas/${name}`, out, seen);
  for (const [path, methods] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [verb, op] of Object.entries<Json>(methods)) {
      const at = `${verb.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? [])
        if (!p.description && !p.schema?.description) out.push(`${at} parameter ${p.name}`);
      for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {}))
        walkSchema(media.schema, `${at} body(${type})`, out, seen);
      for (const [status, r] of Object.entries<Json>(op.responses ?? {}))
        for (const [type, media] of Object.entries<Json>(r.content ?? {}))
          walkSchema(media.schema, `${at} ${status}(${type})`, out, seen);
    }
  }
  return out;
}

const resolve = (doc: Json, s: Json | undefined): Json | undefined =>
  s?.$ref ? doc.components?.schemas?.[s.$ref.split("/").pop()] : s;

/** Request bodies with no example on the media type or on their (resolved) schema. */
export function bodiesWithoutExample(doc: Json): string[] {
  const out: string[] = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [verb, op] of Object.entries<Json>(methods)) {
      for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {})) {
        const schema = resolve(doc, media.schema);
        if (
          media.example === undefined &&
          media.examples === undefined &&
          schema?.example === undefined &&
          !(schema?.examples?.length > 0)
        )
          out.push(`${verb.toUpperCase()} ${path} (${type})`);
      }
    }
  }
  return out;
}
