import { describe, expect, it } from "vitest";
import { pruneMessages } from "../../src/render/prune-messages.ts";
import { purgedArgs } from "../../src/texts.ts";
import { A, F, R, U } from "@condense/test-support/messages";
import { settings, state, textOf } from "./fixtures.ts";

// {"command":"<586 x>"} is exactly 600 chars of JSON.
const bigArgs = { command: "x".repeat(586) };
const opts = { settings: settings() };

describe("phase 2: error purge", () => {
  const base = () => [
    U(1),
    A(100, { id: "edit_1", name: "edit", args: bigArgs }),
    R(150, "edit_1", "patch failed: no match", { name: "edit", isError: true }),
  ];

  it("AS-41 keeps errored args for one more turn and purges them after two; the error text stays", () => {
    expect(JSON.stringify(bigArgs).length).toBe(600);
    const one = [...base(), F(200)];
    expect(pruneMessages(one, state(), opts).messages).toBe(one);

    const two = [...base(), F(200), U(300), F(400)];
    const r = pruneMessages(two, state(), opts);
    const call = (r.messages[1] as { content: { arguments: unknown }[] }).content[0]!;
    expect(call.arguments).toEqual(purgedArgs(600));
    expect(JSON.stringify(call.arguments)).toBe('{"_purged":"<condense-purged-error-args size=\\"600\\"/>"}');
    expect(textOf(r.messages[2])).toBe("patch failed: no match");
    expect(r.stats.purged).toBe(1);
    // byte-stable: an independent render of a fresh copy builds the same bytes
    expect(JSON.stringify(pruneMessages(structuredClone(two), state(), opts).messages[1])).toBe(
      JSON.stringify(r.messages[1]),
    );
  });

  it("leaves small args, successful calls and a disabled purge alone", () => {
    const small = [
      U(1),
      A(100, { id: "edit_1", name: "edit", args: { a: 1 } }),
      R(150, "edit_1", "err", { isError: true }),
      F(200),
      F(300),
      F(400),
    ];
    expect(pruneMessages(small, state(), opts).messages).toBe(small);
    const ok = [
      U(1),
      A(100, { id: "edit_1", name: "edit", args: bigArgs }),
      R(150, "edit_1", "fine"),
      F(200),
      F(300),
      F(400),
    ];
    expect(pruneMessages(ok, state(), opts).messages).toBe(ok);
    const off = [...base(), F(200), F(300), F(400)];
    expect(pruneMessages(off, state(), { settings: settings({ purgeErrors: { enabled: false } }) }).messages).toBe(off);
  });
});
