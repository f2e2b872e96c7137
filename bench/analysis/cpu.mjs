// CPU time for the analysis benchmark's measuring processes.
import { readFileSync } from "node:fs";

/**
 * CPU time used so far, in ms: this process's own, and that of the children it has reaped
 * (fields 16 and 17 of /proc/self/stat, in clock ticks of 10 ms: coarse, so read as a mean over
 * runs). On a loaded machine a call's wall time is mostly waiting for a core; its CPU time is not.
 */
export function cpuMs() {
  const own = process.cpuUsage();
  let children = Number.NaN;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    children = (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    // Not Linux: children's time is unknown (NaN), never silently zero.
  }
  return (own.user + own.system) / 1000 + children;
}
