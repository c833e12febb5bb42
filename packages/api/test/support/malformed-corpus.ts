/**
 * A generated corpus of malformed requests: wrong types, missing fields, huge strings, bad Unicode
 * (lone surrogates, invalid UTF-8 bytes), wrong ids, truncated JSON, wrong content types, bad query
 * parameters, bad auth. Every case must answer 4xx with an error code; none may answer 5xx.
 */
export interface MalformedCase {
  name: string;
  method: "GET" | "POST";
  path: string;
  /** Override of the default JSON content type; null sends none. */
  contentType?: string | null;
  body?: string | Buffer;
  /** Replace the default Authorization (tenant key; admin key on /v1/admin). null sends none; "$TENANT" is the tenant's header. */
  authorization?: string | null;
  /** Send over a raw socket (bodies fetch cannot express: invalid bytes, a lying length). */
  raw?: { contentLength?: number };
}

const validCall = () => ({
  toolCallId: "call_1",
  toolName: "bash",
  args: { cmd: "ls" },
  resultText: "ok",
  isError: false,
  resultTimestamp: 1700000000123,
});
const validBatch = () => ({
  turnIndex: 0,
  timestamp: 1700000000000,
  assistantText: "",
  toolCalls: [validCall()],
  userTurnGroup: 0,
});
export const validCaptures = () => ({ captureId: "cap-1", batches: [validBatch()] });
export const validFlush = () => ({
  trigger: "manual",
  metrics: { openCycleThinkingTokens: 1, largestChainSharePct: 2, frontierGapTokens: 3 },
  chains: [{ startUserTimestamp: 1, finalAssistantTimestamp: 2, middleToolCallIds: ["a"] }],
  settings: { minBatchChars: 5 },
});
export const validQuery = () => ({ toolCallIds: ["t1"] });

type Json = Record<string, unknown>;

function setPath(obj: Json, path: (string | number)[], value: unknown): Json {
  const copy = structuredClone(obj);
  let cur: any = copy;
  for (const p of path.slice(0, -1)) cur = cur[p];
  const last = path[path.length - 1]!;
  if (value === DELETE) delete cur[last];
  else cur[last] = value;
  return copy;
}
const DELETE = Symbol("delete");

const WRONG_VALUES: [string, unknown][] = [
  ["null", null],
  ["number", 42],
  ["string", "text"],
  ["boolean", true],
  ["array", [1]],
  ["object", { a: 1 }],
];

const typeOf = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? "number" : typeof v;

function wrongTypes(name: string, path: string, base: Json, leaves: (string | number)[][]): MalformedCase[] {
  const out: MalformedCase[] = [];
  for (const leaf of leaves) {
    let cur: any = base;
    for (const p of leaf) cur = cur[p];
    for (const [label, v] of WRONG_VALUES) {
      if (typeOf(v) === typeOf(cur)) continue;
      // args accepts any object, so an object is not a wrong type there.
      if (leaf[leaf.length - 1] === "args" && label === "object") continue;
      out.push({
        name: `${name}: ${leaf.join(".")} as ${label}`,
        method: "POST",
        path,
        body: JSON.stringify(setPath(base, leaf, v)),
      });
    }
  }
  return out;
}

function missing(name: string, path: string, base: Json, required: (string | number)[][]): MalformedCase[] {
  return required.map((leaf) => ({
    name: `${name}: missing ${leaf.join(".")}`,
    method: "POST" as const,
    path,
    body: JSON.stringify(setPath(base, leaf, DELETE)),
  }));
}

function truncations(name: string, path: string, body: string, cuts: number): MalformedCase[] {
  const out: MalformedCase[] = [];
  for (let i = 1; i <= cuts; i++) {
    const at = Math.max(1, Math.floor((body.length * i) / (cuts + 1)));
    out.push({ name: `${name}: truncated at ${at}/${body.length}`, method: "POST", path, body: body.slice(0, at) });
  }
  return out;
}

export function malformedCorpus(opts: { maxRequestBytes: number; maxResultBytes: number }): MalformedCase[] {
  const S = "/v1/sessions/s-corpus";
  const cap = `${S}/captures`;
  const cases: MalformedCase[] = [];
  const C = validCaptures();
  const callLeaves = ["toolCallId", "toolName", "args", "resultText", "isError", "resultTimestamp"].map((k) => [
    "batches",
    0,
    "toolCalls",
    0,
    k,
  ]);
  const batchLeaves = ["turnIndex", "timestamp", "assistantText", "toolCalls", "userTurnGroup"].map((k) => [
    "batches",
    0,
    k,
  ]);

  // Wrong types
  cases.push(...wrongTypes("captures", cap, C, [["captureId"], ["batches"], ...batchLeaves, ...callLeaves]));
  cases.push(
    ...wrongTypes("flushes", `${S}/flushes`, validFlush(), [
      ["trigger"],
      ["metrics"],
      ["metrics", "frontierGapTokens"],
      ["chains"],
      ["chains", 0, "startUserTimestamp"],
      ["chains", 0, "middleToolCallIds"],
      ["settings"],
    ]),
  );
  cases.push(...wrongTypes("query", `${S}/query`, validQuery(), [["toolCallIds"], ["toolCallIds", 0]]));
  cases.push(...wrongTypes("admin tenants", "/v1/admin/tenants", { id: "acme-2", name: "Acme" }, [["id"], ["name"]]));

  // Missing fields
  cases.push(
    ...missing("captures", cap, C, [
      ["captureId"],
      ["batches"],
      ...batchLeaves.filter((l) => l[2] !== "userTurnGroup"),
      ...callLeaves.filter((l) => !["resultTimestamp"].includes(String(l[4]))),
    ]),
  );
  cases.push(...missing("query", `${S}/query`, validQuery(), [["toolCallIds"]]));
  cases.push(...missing("admin tenants", "/v1/admin/tenants", { name: "Acme" }, [["name"]]));
  cases.push({
    name: "flushes: chain without its timestamps",
    method: "POST",
    path: `${S}/flushes`,
    body: JSON.stringify({ trigger: "manual", chains: [{ middleToolCallIds: [] }] }),
  });

  // Out-of-range values
  const ranges: [string, (string | number)[], unknown][] = [
    ["negative timestamp", ["batches", 0, "timestamp"], -1],
    ["fractional turn", ["batches", 0, "turnIndex"], 1.5],
    ["turn below -1", ["batches", 0, "turnIndex"], -2],
    ["empty toolCalls", ["batches", 0, "toolCalls"], []],
    ["empty batches", ["batches"], []],
    ["empty captureId", ["captureId"], ""],
    ["captureId with spaces", ["captureId"], "a b"],
    ["empty toolCallId", ["batches", 0, "toolCalls", 0, "toolCallId"], ""],
    ["unsafe integer timestamp", ["batches", 0, "timestamp"], 2 ** 60],
  ];
  for (const [label, leaf, v] of ranges)
    cases.push({ name: `captures: ${label}`, method: "POST", path: cap, body: JSON.stringify(setPath(C, leaf, v)) });
  cases.push({
    name: "captures: 1001 batches",
    method: "POST",
    path: cap,
    body: JSON.stringify({ captureId: "c", batches: Array.from({ length: 1001 }, validBatch) }),
  });
  cases.push({
    name: "query: 101 ids",
    method: "POST",
    path: `${S}/query`,
    body: JSON.stringify({ toolCallIds: Array.from({ length: 101 }, (_, i) => `t${i + 1}`) }),
  });
  cases.push({
    name: "query: negative offset",
    method: "POST",
    path: `${S}/query`,
    body: JSON.stringify({ toolCallIds: ["t1"], offset: -1 }),
  });
  cases.push({
    name: "query: fractional offset",
    method: "POST",
    path: `${S}/query`,
    body: JSON.stringify({ toolCallIds: ["t1"], offset: 1.5 }),
  });
  cases.push({
    name: "query: empty id list",
    method: "POST",
    path: `${S}/query`,
    body: JSON.stringify({ toolCallIds: [] }),
  });
  cases.push({
    name: "flushes: unknown trigger",
    method: "POST",
    path: `${S}/flushes`,
    body: JSON.stringify({ trigger: "every-turn" }),
  });
  cases.push({
    name: "flushes: flushId not a uuid",
    method: "POST",
    path: `${S}/flushes`,
    body: JSON.stringify({ trigger: "manual", flushId: "nope" }),
  });
  cases.push({
    name: "flushes: infinite metric",
    method: "POST",
    path: `${S}/flushes`,
    body: '{"trigger":"manual","metrics":{"openCycleThinkingTokens":1e400,"largestChainSharePct":1,"frontierGapTokens":1}}',
  });
  cases.push({
    name: "flushes: negative metric",
    method: "POST",
    path: `${S}/flushes`,
    body: JSON.stringify({
      trigger: "manual",
      metrics: { openCycleThinkingTokens: -1, largestChainSharePct: 1, frontierGapTokens: 1 },
    }),
  });

  // Huge strings and bodies
  cases.push({
    name: "captures: 100k-char captureId",
    method: "POST",
    path: cap,
    body: JSON.stringify(setPath(C, ["captureId"], "c".repeat(100_000))),
  });
  cases.push({
    name: "captures: 100k-char toolCallId",
    method: "POST",
    path: cap,
    body: JSON.stringify(setPath(C, ["batches", 0, "toolCalls", 0, "toolCallId"], "i".repeat(100_000))),
  });
  cases.push({
    name: "captures: 100k-char toolName",
    method: "POST",
    path: cap,
    body: JSON.stringify(setPath(C, ["batches", 0, "toolCalls", 0, "toolName"], "n".repeat(100_000))),
  });
  cases.push({
    name: "captures: result over the per-result limit",
    method: "POST",
    path: cap,
    body: JSON.stringify(setPath(C, ["batches", 0, "toolCalls", 0, "resultText"], "r".repeat(opts.maxResultBytes + 1))),
  });
  cases.push({
    name: "captures: multibyte result over the per-result limit",
    method: "POST",
    path: cap,
    body: JSON.stringify(
      setPath(C, ["batches", 0, "toolCalls", 0, "resultText"], "é".repeat(Math.ceil(opts.maxResultBytes / 2) + 1)),
    ),
  });
  cases.push({
    name: "captures: args over the per-result limit",
    method: "POST",
    path: cap,
    body: JSON.stringify(
      setPath(C, ["batches", 0, "toolCalls", 0, "args"], { blob: "a".repeat(opts.maxResultBytes + 1) }),
    ),
  });
  // Raw: the server may answer 413 and close before the whole body is sent, which fetch reports as a failure.
  cases.push({
    name: "captures: body over the request limit",
    method: "POST",
    path: cap,
    body: JSON.stringify(setPath(C, ["batches", 0, "assistantText"], "x".repeat(opts.maxRequestBytes + 10))),
    raw: {},
  });
  cases.push({
    name: "query: 100k-char id",
    method: "POST",
    path: `${S}/query`,
    body: JSON.stringify({ toolCallIds: ["t".repeat(100_000)] }),
  });
  cases.push({
    name: "captures: args nested 200 deep",
    method: "POST",
    path: cap,
    body: JSON.stringify(
      setPath(C, ["batches", 0, "toolCalls", 0, "args"], { a: JSON.parse("[".repeat(200) + "]".repeat(200)) }),
    ),
  });
  cases.push({
    name: "captures: body nested 100000 deep",
    method: "POST",
    path: cap,
    body: "[".repeat(100_000) + "]".repeat(100_000),
  });

  // Bad Unicode
  for (const leaf of [
    ["captureId"],
    ["batches", 0, "assistantText"],
    ...["toolCallId", "toolName", "resultText"].map((k) => ["batches", 0, "toolCalls", 0, k]),
  ] as (string | number)[][]) {
    for (const [label, s] of [
      ["lone high surrogate", "\ud800"],
      ["lone low surrogate", "x\udfffy"],
      ["NUL", "a\u0000b"],
    ] as const) {
      cases.push({
        name: `captures: ${label} in ${leaf.join(".")}`,
        method: "POST",
        path: cap,
        body: JSON.stringify(setPath(C, leaf, s)),
      });
    }
  }
  cases.push({
    name: "captures: lone surrogate as an args key",
    method: "POST",
    path: cap,
    body: JSON.stringify(setPath(C, ["batches", 0, "toolCalls", 0, "args"], { "\ud83d": 1 })),
  });
  cases.push({
    name: "captures: NUL deep in args",
    method: "POST",
    path: cap,
    body: JSON.stringify(setPath(C, ["batches", 0, "toolCalls", 0, "args"], { a: [{ b: "\u0000" }] })),
  });
  cases.push({
    name: "query: lone surrogate id",
    method: "POST",
    path: `${S}/query`,
    body: JSON.stringify({ toolCallIds: ["\udc00"] }),
  });
  cases.push({
    name: "admin: NUL in tenant name",
    method: "POST",
    path: "/v1/admin/tenants",
    body: JSON.stringify({ name: "a\u0000" }),
  });
  const good = Buffer.from(JSON.stringify(setPath(C, ["batches", 0, "toolCalls", 0, "resultText"], "XXXX")));
  const at = good.indexOf("XXXX");
  for (const [label, bytes] of [
    ["0xff byte", [0xff]],
    ["overlong slash", [0xc0, 0xaf]],
    ["truncated 3-byte sequence", [0xe2, 0x82]],
    ["encoded surrogate", [0xed, 0xa0, 0x80]],
  ] as const) {
    const b = Buffer.concat([good.subarray(0, at), Buffer.from(bytes), good.subarray(at + 4)]);
    cases.push({ name: `captures: invalid UTF-8 (${label}) in a string`, method: "POST", path: cap, body: b, raw: {} });
  }

  // Wrong ids (path and query)
  for (const [label, id] of [
    ["space", "a%20b"],
    ["unicode", "s%C3%A9ssion"],
    ["too long", "s".repeat(129)],
    ["percent-encoded slash", "a%2Fb"],
    ["quote", "a%22b"],
    ["angle", "%3Cscript%3E"],
    ["NUL", "a%00b"],
    ["lone surrogate escape", "a%ED%A0%80"],
  ]) {
    cases.push({ name: `state: session id with ${label}`, method: "GET", path: `/v1/sessions/${id}/state` });
    cases.push({
      name: `captures: session id with ${label}`,
      method: "POST",
      path: `/v1/sessions/${id}/captures`,
      body: JSON.stringify(C),
    });
  }
  for (const [label, id] of [
    ["uppercase", "ACME"],
    ["too long", "a".repeat(65)],
    ["dot", "a.b"],
    ["leading dash", "-a"],
  ]) {
    cases.push({
      name: `admin keys: tenant id ${label}`,
      method: "POST",
      path: `/v1/admin/tenants/${id}/keys`,
      body: "{}",
    });
  }

  // Bad query parameters
  for (const q of ["since=abc", "since=-5", "since=1.5", "since=1e999", "since=Infinity", "since=9007199254740993"])
    cases.push({ name: `state: ${q}`, method: "GET", path: `${S}/state?${q}` });
  for (const q of [
    "limit=0",
    "limit=1000",
    "limit=abc",
    "cursor=!!!",
    "cursor=bm90LWEtY3Vyc29y",
    `cursor=${"a".repeat(600)}`,
  ])
    cases.push({ name: `list: ${q}`, method: "GET", path: `/v1/sessions?${q}` });
  for (const q of ["flushes=0", "flushes=101", "flushes=x"])
    cases.push({ name: `status: ${q}`, method: "GET", path: `${S}/status?${q}` });
  for (const q of ["minutes=0", "minutes=abc", "minutes=99999999"])
    cases.push({ name: `fleet: ${q}`, method: "GET", path: `/v1/fleet/status?${q}` });
  cases.push({ name: "events: since=-1", method: "GET", path: `${S}/events?since=-1` });

  // Truncated JSON
  cases.push(...truncations("captures", cap, JSON.stringify(C), 12));
  cases.push(...truncations("flushes", `${S}/flushes`, JSON.stringify(validFlush()), 8));
  cases.push(...truncations("query", `${S}/query`, JSON.stringify(validQuery()), 5));
  for (const junk of [
    "",
    "null",
    "[]",
    "42",
    '"text"',
    "{",
    "}",
    "{'single': 'quotes'}",
    '{"a":1,}',
    "NaN",
    '{"captureId":"c","batches":[]} trailing',
  ]) {
    cases.push({ name: `captures: body ${JSON.stringify(junk).slice(0, 30)}`, method: "POST", path: cap, body: junk });
  }

  // Wrong content types
  for (const ct of [
    "text/plain",
    "application/xml",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded",
    "application/octet-stream",
    "text/json",
  ]) {
    cases.push({
      name: `captures: content-type ${ct}`,
      method: "POST",
      path: cap,
      contentType: ct,
      body: JSON.stringify(C),
    });
    cases.push({
      name: `query: content-type ${ct}`,
      method: "POST",
      path: `${S}/query`,
      contentType: ct,
      body: JSON.stringify(validQuery()),
    });
  }
  cases.push({
    name: "captures: no content-type with a body",
    method: "POST",
    path: cap,
    contentType: null,
    body: JSON.stringify(C),
  });
  cases.push({ name: "query: no content-type, no body", method: "POST", path: `${S}/query`, contentType: null });

  // Lying lengths over a raw socket
  cases.push({
    name: "captures: content-length above the limit",
    method: "POST",
    path: cap,
    body: "{}",
    raw: { contentLength: opts.maxRequestBytes + 1 },
  });

  // Auth
  for (const [label, auth] of [
    ["none", null],
    ["empty bearer", "Bearer "],
    ["basic", "Basic dXNlcjpwYXNz"],
    ["unknown key", `Bearer ck_${"Z".repeat(43)}`],
    ["wrong prefix", "Bearer sk_abcdefghijklmnopqrstuvwxyz"],
    ["key with NUL-like junk", "Bearer ck_%00%00"],
  ] as const) {
    cases.push({ name: `state: auth ${label}`, method: "GET", path: `${S}/state`, authorization: auth });
    cases.push({
      name: `captures: auth ${label}`,
      method: "POST",
      path: cap,
      authorization: auth,
      body: JSON.stringify(C),
    });
  }
  cases.push({
    name: "admin: tenant key on admin route",
    method: "POST",
    path: "/v1/admin/tenants",
    authorization: "$TENANT",
    body: JSON.stringify({ name: "x" }),
  });
  return cases;
}
