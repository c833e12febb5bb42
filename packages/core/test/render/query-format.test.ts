import { describe, expect, it } from "vitest";
import { formatQueryOutput } from "../../src/query-format.ts";
import { QUERY_NOT_FOUND_LINE } from "../../src/texts.ts";
import { rec, state } from "./fixtures.ts";

const block = (
  label: string,
  r: { toolName: string; args: unknown; isError?: boolean; turn: number; body: string },
  legacy = false,
) =>
  [
    `## toolRef: ${label}`,
    ...(legacy ? ["Occurrence: legacy (no resultTimestamp)"] : []),
    `Tool: ${r.toolName}`,
    `Args: ${JSON.stringify(r.args, null, 2)}`,
    `Status: ${r.isError ? "ERROR" : "OK"}`,
    `Turn: ${r.turn}`,
    "",
    r.body,
  ].join("\n");

describe("context_tree_query output", () => {
  const st = state({
    records: [
      rec("bash_23", 1150, { shortRef: "t1", resultText: "FIRST", args: { command: "ls" }, turnIndex: 1 }),
      rec("bash_23", 2150, {
        shortRef: "t2",
        resultText: "SECOND",
        args: { command: "pwd" },
        turnIndex: 3,
        isError: true,
      }),
      rec("read_4", 4150, { shortRef: "t3", resultText: "ONLY", toolName: "read", turnIndex: -1 }),
    ],
  });

  it("AS-44 reused id -> every occurrence chronologically; key -> one; tN -> its own; unknown -> not found; single -> plain label", () => {
    const all = formatQueryOutput(st, ["bash_23"]);
    expect(all.text).toBe(
      [
        block("bash_23@1150", { toolName: "bash", args: { command: "ls" }, turn: 1, body: "FIRST" }),
        block("bash_23@2150", { toolName: "bash", args: { command: "pwd" }, isError: true, turn: 3, body: "SECOND" }),
      ].join("\n\n---\n\n"),
    );
    expect(Object.keys(all.results)).toEqual(["bash_23@1150", "bash_23@2150"]);
    expect(formatQueryOutput(st, ["bash_23@2150"]).text).toBe(
      block("bash_23@2150", { toolName: "bash", args: { command: "pwd" }, isError: true, turn: 3, body: "SECOND" }),
    );
    expect(formatQueryOutput(st, ["t1"]).text).toBe(
      block("t1", { toolName: "bash", args: { command: "ls" }, turn: 1, body: "FIRST" }),
    );
    expect(formatQueryOutput(st, ["nope"]).text).toBe(`## toolRef: nope\n${QUERY_NOT_FOUND_LINE}`);
    expect(formatQueryOutput(st, ["read_4"]).text).toBe(
      block("read_4", { toolName: "read", args: {}, turn: -1, body: "ONLY" }),
    );
  });

  it("AS-45 a legacy record is labelled with its bare id plus the legacy line; an alias carries its own timestamp and the original's content", () => {
    const legacy = state({
      records: [
        rec("bash_23", undefined, { resultText: "OLD", turnIndex: 0 }),
        rec("bash_23", 2150, { resultText: "NEW", turnIndex: 2 }),
      ],
    });
    const text = formatQueryOutput(legacy, ["bash_23"]).text;
    expect(text.split("\n\n---\n\n")[0]).toBe(
      block("bash_23", { toolName: "bash", args: {}, turn: 0, body: "OLD" }, true),
    );
    expect(text.split("\n\n---\n\n")[1]!.startsWith("## toolRef: bash_23@2150\nTool:")).toBe(true);

    const aliased = state({
      records: [rec("bash_23", 1150, { shortRef: "t1", resultText: "X" })],
      aliases: [{ key: "bash_23@9150", originalKey: "bash_23@1150" }],
    });
    const parts = formatQueryOutput(aliased, ["bash_23"]).text.split("\n\n---\n\n");
    expect(parts).toHaveLength(2);
    expect(parts[1]).toBe(block("bash_23@9150", { toolName: "bash", args: {}, turn: 0, body: "X" }));
  });

  it("reads stored bodies through the caller, falls back to the preview, and cuts long bodies to their head", () => {
    const stored = state({ records: [rec("bash_5", 550, { resultText: "", stored: { bytes: 9, preview: "head" } })] });
    expect(formatQueryOutput(stored, ["bash_5"], () => "full body").text.endsWith("\n\nfull body")).toBe(true);
    expect(formatQueryOutput(stored, ["bash_5"], () => undefined).text.endsWith("\n\nhead")).toBe(true);
    const long = state({
      records: [rec("cat_1", 10, { resultText: Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n") })],
    });
    const cut =
      '[Output truncated: characters 0-9 of 29 shown. Next page: call context_tree_query with {"toolCallIds":["cat_1"],"offset":9}]';
    expect(
      formatQueryOutput(long, ["cat_1"], undefined, { maxLines: 3, maxBytes: 1000 }).text.endsWith(
        `\n\nl0\nl1\nl2\n\n${cut}`,
      ),
    ).toBe(true);
    expect(
      formatQueryOutput(long, ["cat_1"], undefined, { maxLines: 3, maxBytes: 1000 }, 27).text.endsWith(
        "\n\nl9\n[End of output: characters 27-29 of 29 shown; this is the last page.]",
      ),
    ).toBe(true);
  });
});
