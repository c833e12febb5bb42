/** The drizzle schema of every Condense table; drizzle-kit generates migrations from this file. */
export * from "./tenants.ts";
export * from "./sessions.ts";
export * from "./captures.ts";
export * from "./state.ts";
export * from "./flushes.ts";
export * from "./observability.ts";
export * from "./bodies.ts";
