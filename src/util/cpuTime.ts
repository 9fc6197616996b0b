/**
 * CPU seconds spent by this process and the child processes it has waited for (user and system), so a
 * long command can report what it cost beside its wall time: on a busy machine the wall time grows
 * with the load while the CPU seconds stay put, and only the pair lets a reader compare machines.
 *
 * On Linux the children's share comes from /proc/self/stat (cutime, cstime); elsewhere Node exposes
 * no total for children, so only this process is counted and `withChildren` says so.
 */
import { readFileSync } from "node:fs";

export interface CpuTime {
  userS: number;
  systemS: number;
  /** False where the children's CPU could not be read (then user/system are this process only). */
  withChildren: boolean;
}

/** Clock ticks per second of /proc's time fields (USER_HZ, 100 on every Linux ABI Node supports). */
const USER_HZ = 100;

/** user/system/children fields of a /proc/<pid>/stat line; null if it is not one. */
export function parseProcStat(line: string): { utime: number; stime: number; cutime: number; cstime: number } | null {
  // The command name (field 2) is in parentheses and may itself hold spaces or ')': split after the last.
  const close = line.lastIndexOf(")");
  if (close < 0) return null;
  const f = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // f[0] is field 3 (state); utime, stime, cutime, cstime are fields 14-17.
  const nums = [f[11], f[12], f[13], f[14]].map((x) => (x !== undefined && /^\d+$/.test(x) ? Number(x) : NaN));
  if (nums.some((n) => !Number.isFinite(n))) return null;
  const [utime, stime, cutime, cstime] = nums as [number, number, number, number];
  return { utime, stime, cutime, cstime };
}

export function cpuTime(): CpuTime {
  try {
    const p = parseProcStat(readFileSync("/proc/self/stat", "utf8"));
    if (p) return { userS: (p.utime + p.cutime) / USER_HZ, systemS: (p.stime + p.cstime) / USER_HZ, withChildren: true };
  } catch {
    // No /proc (macOS, Windows): fall through to this process alone.
  }
  const u = process.cpuUsage();
  return { userS: u.user / 1e6, systemS: u.system / 1e6, withChildren: false };
}

/** "725 s user + 159 s sys" for the CPU spent between two readings. */
export function formatCpu(from: CpuTime, to: CpuTime): string {
  return `${Math.round(to.userS - from.userS)} s user + ${Math.round(to.systemS - from.systemS)} s sys`;
}
