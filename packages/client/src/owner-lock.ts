/**
 * Reading a data directory's owner lock (`owner.lock`, written by @condense/service's data-dir-lock)
 * and deciding whether the process it names still runs. The client asks before it starts a service
 * (a live owner is a service still starting: wait for it); the service asks before it takes the lock
 * over. Both use this one rule, so a lock whose pid was reused by an unrelated process (after a crash
 * and a reboot, or a long uptime) is stale for both, never "alive" for one and "dead" for the other.
 */
import { readFileSync, statSync } from "node:fs";

export interface LockOwner {
  pid: number;
  /** The process's start time (Linux: clock ticks since boot, from /proc/<pid>/stat), or null. */
  startTime: string | null;
  /** What the owner serves: "local service", "condense serve", "replay", "cli". */
  role: string;
  /** Where it can be reached (a socket path or URL), when it serves. */
  endpoint?: string;
  since: string;
}

/** The owner a lock file names; null when there is no lock. A torn or foreign file names a dead owner. */
export function readOwnerLock(file: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<LockOwner>;
    if (typeof parsed.pid === "number") return { startTime: null, role: "unknown", since: "", ...parsed } as LockOwner;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
  }
  // Unreadable or half-written: a dead owner's (a live one writes it in one call).
  return { pid: -1, startTime: null, role: "unknown", since: "" };
}

/** The start time of a live process, or null when it is not running (or unknown off Linux). */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime); the command name (field 2) may hold spaces, so count after its ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the lock's owner still runs: its pid is alive and, where known, started when the lock says. */
export function ownerIsAlive(owner: LockOwner): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else, which for a per-user directory still means alive.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (owner.startTime === null) return true;
  const now = processStartTime(owner.pid);
  // Unreadable start time: with /proc the process just exited; without /proc (not Linux) trust the pid.
  if (now === null) return !hasProc();
  return now === owner.startTime;
}

function hasProc(): boolean {
  try {
    statSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
}
