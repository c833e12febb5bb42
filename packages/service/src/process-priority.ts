/**
 * The local service's CPU priority (CONDENSE_SERVICE_NICE). It shares the machine with the agents it
 * serves, and nothing an agent waits on waits on it, so it yields the CPU to them. On Linux a
 * niceness belongs to a thread, not a process, and node already runs its helper threads (GC, the
 * compiler, libuv's pool) when this runs: every thread in /proc/self/task is lowered, and threads
 * started later inherit it from the main thread. Elsewhere the process's priority is set. Niceness
 * is only ever raised (a lower one needs privileges), so a service started under `nice` keeps it.
 */
import { readdirSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

export interface PriorityResult {
  /** Threads (Linux) or processes set to `nice`. */
  set: number;
  /** Why a thread could not be set, if any could not. */
  error?: string;
}

export function lowerPriority(nice: number): PriorityResult {
  if (nice <= 0) return { set: 0 };
  let ids: number[];
  try {
    ids = readdirSync("/proc/self/task").map(Number).filter(Number.isInteger);
  } catch {
    ids = [0];
  }
  let set = 0;
  let error: string | undefined;
  for (const id of ids) {
    try {
      if (getPriority(id) >= nice) continue;
      setPriority(id, nice);
      set++;
    } catch (err) {
      // A thread that ended meanwhile, or a platform without per-thread priorities.
      error ??= err instanceof Error ? err.message : String(err);
    }
  }
  return { set, ...(error ? { error } : {}) };
}
