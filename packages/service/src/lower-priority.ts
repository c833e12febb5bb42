/**
 * The local service yields the CPU to the agent that started it. The service is started detached, in
 * a session of its own, and on Linux with scheduling autogroups (`/proc/sys/kernel/sched_autogroup_enabled`)
 * a new session is a new autogroup: the scheduler first shares the CPU equally between the agent's
 * group and the service's, whatever each process's nice value, so `setpriority` alone changes nothing
 * between them. The autogroup's own nice value (`/proc/self/autogroup`) does. Both are set: the
 * process's for systems without autogroups (and for the threads it starts from now on), the group's
 * for the threads V8 started before this ran (its compiler and GC helpers).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

export interface PriorityResult {
  /** The process's nice value after the call. */
  process: number;
  /** The autogroup's nice value after the call, or null without autogroups. */
  autogroup: number | null;
}

const AUTOGROUP = "/proc/self/autogroup";

/** Lowers this process (and its autogroup) to `nice`; never raises either. Errors leave it as it was. */
export function lowerPriority(nice: number, autogroupFile = AUTOGROUP): PriorityResult {
  if (nice > 0) {
    try {
      if (getPriority() < nice) setPriority(nice);
    } catch {
      /* not permitted: stay as started */
    }
  }
  let group = readAutogroupNice(autogroupFile);
  if (nice > 0 && group !== null && group < nice) {
    try {
      writeFileSync(autogroupFile, String(nice));
    } catch {
      /* not permitted: stay as started */
    }
    group = readAutogroupNice(autogroupFile);
  }
  return { process: getPriority(), autogroup: group };
}

/** `/autogroup-85 nice 0` → 0; null where there is no such file. */
export function readAutogroupNice(file = AUTOGROUP): number | null {
  try {
    const m = /nice\s+(-?\d+)/.exec(readFileSync(file, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
