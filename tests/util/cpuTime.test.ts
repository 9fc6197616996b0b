import { describe, expect, it } from "vitest";
import { cpuTime, formatCpu, parseProcStat } from "../../src/util/cpuTime.js";

describe("cpuTime", () => {
  it("reads utime, stime, cutime, cstime (fields 14-17) of a /proc stat line, even with ') ' in the name", () => {
    // Fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    const line = "4242 (node) x) (y) S 1 4242 4242 0 -1 4194304 100 200 0 0 1234 56 7800 910 20 0 11 0";
    expect(parseProcStat(line)).toEqual({ utime: 1234, stime: 56, cutime: 7800, cstime: 910 });
    expect(parseProcStat("no parenthesis here")).toBeNull();
    expect(parseProcStat("1 (a) S 1 2")).toBeNull();
  });

  it("formats the CPU between two readings in whole seconds", () => {
    const a = { userS: 10.2, systemS: 1, withChildren: true };
    const b = { userS: 735.6, systemS: 160.4, withChildren: true };
    expect(formatCpu(a, b)).toBe("725 s user + 159 s sys");
  });

  it("grows with work this process does", () => {
    const a = cpuTime();
    let x = 0;
    // Busy until 50 ms of CPU (not wall: the machine may be loaded) have been spent, i.e. 5 ticks of /proc.
    const u0 = process.cpuUsage();
    while (process.cpuUsage(u0).user < 50_000) for (let i = 0; i < 1e5; i++) x += Math.sqrt(x + 1);
    const b = cpuTime();
    expect(x).toBeGreaterThan(0);
    expect(b.userS + b.systemS).toBeGreaterThan(a.userS + a.systemS);
  });
});
