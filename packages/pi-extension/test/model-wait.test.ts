import { afterEach, describe, expect, it, vi } from "vitest";
import { ModelWait } from "../src/model-wait.ts";

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe("ModelWait: the client's background work runs once pi's next request is out", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds work until a request is handed to the provider, then runs it in order after that turn", async () => {
    const w = new ModelWait();
    const ran: string[] = [];
    w.schedule(() => ran.push("capture"));
    w.schedule(() => ran.push("flush"));
    await nextTurn();
    await nextTurn();
    expect(ran).toEqual([]);
    w.requestSent();
    // not inside pi's own call: the provider sends first
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(["capture", "flush"]);
  });

  it("runs work scheduled while released on the next request, not twice", async () => {
    const w = new ModelWait();
    const ran: number[] = [];
    w.schedule(() => ran.push(1));
    w.requestSent();
    w.requestSent();
    await nextTurn();
    w.schedule(() => ran.push(2));
    await nextTurn();
    expect(ran).toEqual([1]);
    w.requestSent();
    await nextTurn();
    expect(ran).toEqual([1, 2]);
  });

  it("releases at once on agent end or shutdown", () => {
    const w = new ModelWait();
    const ran: number[] = [];
    w.schedule(() => ran.push(1));
    w.release();
    expect(ran).toEqual([1]);
  });

  it("never holds work longer than its limit when no request comes", () => {
    vi.useFakeTimers();
    const w = new ModelWait();
    const ran: number[] = [];
    w.schedule(() => ran.push(1));
    vi.advanceTimersByTime(100);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(ran).toEqual([1]);
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
