/** @condense/core: the pure condensation domain. No I/O, no clock, no globals. */
export * from "./messages.ts";
export * from "./keys.ts";
export * from "./state-types.ts";
export * from "./state-delta.ts";
export * from "./state.ts";
export * from "./settings.ts";
export * from "./protection.ts";
export * from "./chain-range.ts";
export * from "./capture-types.ts";
export * from "./refs.ts";
export * from "./batch-serialize.ts";
