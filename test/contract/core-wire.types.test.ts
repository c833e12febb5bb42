/**
 * Core keeps its own domain types; where they are also a wire shape, they must fit the contract's
 * schema types (checked when the repository typechecks: `expectTypeOf` fails tsc on a mismatch) and
 * share its vocabulary (checked here at run time too).
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  FLUSH_TRIGGERS as WIRE_TRIGGERS,
  type CapturedBatchInput,
  type FlushMetricsInput,
  type FlushTrigger as WireTrigger,
  type StateDeltaWire,
} from "@condense/contract";
import {
  FLUSH_TRIGGERS,
  flushTriggerLabel,
  type CapturedBatch,
  type ContextMetrics,
  type FlushTrigger,
  type StateDelta,
} from "@condense/core";

/**
 * A type as its JSON travels: interfaces become plain object types, which fit the contract's open
 * objects (`looseObject`: an index signature) as any JSON object does; TypeScript lets an interface
 * fit an index signature only through such a copy.
 */
type Json<T> = T extends readonly (infer U)[] ? Json<U>[] : T extends object ? { [K in keyof T]: Json<T[K]> } : T;

describe("core's wire-shaped types fit the contract", () => {
  it("the flush triggers are the contract's, one list", () => {
    expect(FLUSH_TRIGGERS).toBe(WIRE_TRIGGERS);
    for (const t of WIRE_TRIGGERS) expect(flushTriggerLabel(t)).toBe(t);
    expectTypeOf<FlushTrigger>().toEqualTypeOf<WireTrigger>();
  });

  it("core's StateDelta (what the API serves) is a valid state-delta answer", () => {
    expectTypeOf<Json<StateDelta>>().toExtend<StateDeltaWire>();
  });

  it("core's CapturedBatch (what the client captures) is a valid capture batch", () => {
    expectTypeOf<Json<CapturedBatch>>().toExtend<CapturedBatchInput>();
  });

  it("core's context metrics are a valid flush metrics snapshot", () => {
    expectTypeOf<Json<ContextMetrics>>().toExtend<FlushMetricsInput>();
  });
});
