/**
 * Red team, item 4 of issue 12: stale locks in many run directories and many identical starters at
 * once: every directory ends up with exactly one owner, and every other starter is told who owns it.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { acquireRunLock } from "../../src/runner/resume/runLock.js";

const STARTER = fileURLToPath(new URL("./fixtures/lockStarter.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

interface Starter {
  ready: Promise<void>;
  report: Promise<{ got: number; errors: string[] }>;
}

function start(ready: string, go: string, dirs: string[]): Starter {
  const child = spawn(process.execPath, ["--import", "tsx", STARTER, ready, go, ...dirs], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  let onReady: () => void = () => {};
  let onReport: (r: { got: number; errors: string[] }) => void = () => {};
  let fail: (e: Error) => void = () => {};
  const readyP = new Promise<void>((r, j) => {
    onReady = r;
    fail = j;
  });
  const report = new Promise<{ got: number; errors: string[] }>((r, j) => {
    onReport = r;
    const f = fail;
    fail = (e) => {
      f(e);
      j(e);
    };
  });
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    const lines = out.split("\n");
    if (lines.length > 1) onReady();
    if (lines.length > 2) onReport(JSON.parse(lines[1]!) as { got: number; errors: string[] });
  });
  child.on("exit", (code) => fail(new Error(`starter exited ${code} without a report`)));
  return { ready: readyP, report };
}

describe("stale-lock takeover", () => {
  it("8 starters racing over 42 stale locks: exactly one owner per directory", async () => {
    const root = mkdtempSync(join(tmpdir(), "s3locks-"));
    const dead = deadPid();
    const dirs = Array.from({ length: 42 }, (_, i) => join(root, `run${i}`));
    for (const d of dirs) {
      mkdirSync(d);
      writeFileSync(join(d, ".lock"), `${dead}\n`);
    }
    const ready = join(root, "ready");
    const go = join(root, "go");
    const starters = Array.from({ length: 8 }, () => start(ready, go, dirs));
    await Promise.all(starters.map((s) => s.ready));
    writeFileSync(ready, "");
    const reports = await Promise.all(starters.map((s) => s.report));
    writeFileSync(go, "");
    for (const d of dirs) expect(readFileSync(join(d, "owners"), "utf8").trim().split("\n"), d).toHaveLength(1);
    expect(reports.reduce((n, r) => n + r.got, 0)).toBe(42);
    for (const r of reports) for (const e of r.errors) expect(e).toMatch(/is in use by process \d+/);
  });

  it("a lock whose takeover marker was left by a killed process is still taken over", () => {
    const d = mkdtempSync(join(tmpdir(), "s3lock-"));
    const dead = deadPid();
    writeFileSync(join(d, ".lock"), `${dead}\n`);
    writeFileSync(join(d, `.lock.takeover-${dead}`), `${deadPid()}\n`);
    const release = acquireRunLock(d);
    expect(readFileSync(join(d, ".lock"), "utf8")).toBe(`${process.pid}\n`);
    release();
  });

  it("a live owner is named, and the lock is left alone", () => {
    const d = mkdtempSync(join(tmpdir(), "s3lock-"));
    const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      writeFileSync(join(d, ".lock"), `${live.pid}\n`);
      expect(() => acquireRunLock(d)).toThrow(`is in use by process ${live.pid}`);
      expect(readFileSync(join(d, ".lock"), "utf8")).toBe(`${live.pid}\n`);
    } finally {
      live.kill();
    }
  });
});
