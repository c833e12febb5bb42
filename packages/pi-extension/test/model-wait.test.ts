import { createServer } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ModelWait } from "../src/model-wait.ts";
import { watchRequestsOnWire } from "../src/request-on-wire.ts";

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe("ModelWait: the client's background work runs once pi's next request is on the wire", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds work through the hand-over to the provider, runs it in order on the turn after the request is sent", async () => {
    const w = new ModelWait();
    const ran: string[] = [];
    w.schedule(() => ran.push("capture"));
    w.schedule(() => ran.push("flush"));
    await nextTurn();
    w.requestHandedOver();
    await nextTurn();
    expect(ran).toEqual([]);
    w.requestOnWire();
    // not inside the HTTP client's own write
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(["capture", "flush"]);
  });

  it("ignores requests on the wire that pi did not hand over (the extension's own, pi's others)", async () => {
    const w = new ModelWait();
    const ran: number[] = [];
    w.schedule(() => ran.push(1));
    w.requestOnWire();
    await nextTurn();
    expect(ran).toEqual([]);
    w.requestHandedOver();
    w.requestOnWire();
    w.requestOnWire();
    await nextTurn();
    expect(ran).toEqual([1]);
    w.schedule(() => ran.push(2));
    await nextTurn();
    expect(ran).toEqual([1]);
  });

  it("releases at once on agent end or shutdown", () => {
    const w = new ModelWait();
    const ran: number[] = [];
    w.schedule(() => ran.push(1));
    w.release();
    expect(ran).toEqual([1]);
  });

  it("never holds work longer than its limits when no request comes, or none is reported on the wire", () => {
    vi.useFakeTimers();
    const w = new ModelWait();
    const ran: number[] = [];
    w.schedule(() => ran.push(1));
    vi.advanceTimersByTime(100);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(ran).toEqual([1]);
    w.schedule(() => ran.push(2));
    w.requestHandedOver();
    vi.advanceTimersByTime(200);
    expect(ran).toEqual([1, 2]);
  });

  it("runs every piece even when one throws, and reports the error", () => {
    const w = new ModelWait();
    const ran: number[] = [];
    w.schedule(() => {
      throw new Error("spool full");
    });
    w.schedule(() => ran.push(2));
    expect(() => w.release()).toThrow("spool full");
    expect(ran).toEqual([2]);
  });
});

describe("watchRequestsOnWire", () => {
  it("reports a fetch once its body is sent, and nothing after the unsubscribe", async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    let sent = 0;
    const unwatch = watchRequestsOnWire(() => sent++);
    try {
      await (await fetch(`http://127.0.0.1:${port}/v1/chat`, { method: "POST", body: '{"a":1}' })).text();
      expect(sent).toBe(1);
      unwatch();
      await (await fetch(`http://127.0.0.1:${port}/v1/chat`, { method: "POST", body: "{}" })).text();
      expect(sent).toBe(1);
    } finally {
      unwatch();
      server.close();
    }
  });
});
