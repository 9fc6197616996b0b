/**
 * Red team, round four: writes that a full disk or a kill cuts short, and `view`'s child process.
 *
 * Before: `sql --csv` on a full disk wrote a cut-off file and exited 0 ("wrote 1281 rows"); report
 * failed with a bare "ENOSPC ... write"; a killed export left `.steps.parquet.tmp-PID` files that no
 * rerun removed, and new tables beside old ones; a killed SQL cache build leaked its partial database
 * every time; kill -9 of `view` left its child writing the site; one manifest that was a JSON array
 * failed `view` for the whole directory. Now each output is whole or absent, a failure names the file
 * and the cause with a non-zero exit, a later run removes what a killed one left, and view's child
 * stops with its parent.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { buildLogDatabase, exportTables } from "../../src/analysis/sql/logDatabase.js";
import { buildViewer } from "../../src/report/viewer/build.js";
import { runDir } from "../../src/logs/runDir.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, small } from "../runner/helpers.js";

const CLI = join(process.cwd(), "dist", "cli", "main.js");
const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 60_000 });

const settings = small({ exploreEpisodes: 2, checkpointEvery: 1, evalEpisodes: 1, maxSteps: 6 });
const entries = buildMatrix(["builtin:heuristic"], ["snake", "trust"], ["none", "history"], 0);
let data: string;
let ids: string[];

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), "s3whole-"));
  const outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
  expect(outcomes.map((o) => o.status)).toEqual(entries.map(() => "complete"));
  ids = outcomes.map((o) => o.runId);
}, 60_000);

/** A pid that no process has now (a child that has exited). */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid as number;
}

/** Mounting a tmpfs needs root on Linux; CI runs as root, so there a failed mount is a failure, not a skip. */
function canMount(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "s3whole-probe-"));
  const ok = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).status === 0;
  if (ok) spawnSync("umount", [dir]);
  return ok || process.env.CI === "true";
}

describe.skipIf(!canMount())("output on a full disk (a 64 KiB tmpfs; skipped: mounting needs root)", () => {
  const mnt = mkdtempSync(join(tmpdir(), "s3whole-mnt-"));
  beforeAll(() => {
    expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt]).status).toBe(0);
  });
  afterAll(() => {
    spawnSync("umount", [mnt]);
  });

  it("sql --csv exits non-zero naming the disk and the file, and leaves no file", () => {
    const out = join(mnt, "steps.csv");
    const r = cli(["sql", "--data", data, "--no-cache", "--csv", out, "select * from steps, range(20)"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`disk full writing ${out}`);
    expect(r.stdout).not.toMatch(/wrote \d+ rows/);
    expect(readdirSync(mnt)).toEqual([]);
  }, 70_000);

  it("sql with a full temp directory exits 1 naming it and the fix, and leaves no partial build", () => {
    const tmp = join(mnt, "tmp");
    mkdirSync(tmp);
    const r = spawnSync(process.execPath, [CLI, "sql", "--data", data, "select count(*) from steps"], { encoding: "utf8", timeout: 60_000, env: { ...process.env, TMPDIR: tmp } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/s3gym sql: disk full writing \S+/);
    expect(r.stderr).toContain("set TMPDIR to a folder with room");
    const left = spawnSync("find", [tmp, "-type", "f"], { encoding: "utf8" }).stdout.trim();
    expect(left).toBe("");
    rmSync(tmp, { recursive: true, force: true });
  }, 70_000);

  it("report exits 1 naming the disk and a file, and leaves no staged files behind", () => {
    const out = join(mnt, "rep");
    const r = cli(["report", "--data", data, "--out", out, "--bootstrap", "20"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/s3gym report: disk full writing \S+/);
    expect(readdirSync(out).filter((f) => f.startsWith("."))).toEqual([]);
  }, 70_000);
});

describe("export", () => {
  it("removes the temporaries a killed export left, and a new export replaces the old set (no old tables beside new ones)", async () => {
    const out = mkdtempSync(join(tmpdir(), "s3whole-exp-"));
    await exportTables([data], out, "parquet", { cacheDir: null });
    const stale = join(out, `.steps.parquet.tmp-${deadPid()}`);
    writeFileSync(stale, "partial");
    const r = await exportTables([data], out, "csv", { cacheDir: null });
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(out).sort()).toEqual(r.files.map((f) => f.slice(out.length + 1)).sort());
    expect(readdirSync(out).filter((f) => f.endsWith(".parquet"))).toEqual([]);
    const schema = JSON.parse(readFileSync(join(out, "schema.json"), "utf8")) as { format: string };
    expect(schema.format).toBe("csv");
  }, 60_000);
});

describe("the SQL cache", () => {
  it("removes the partial database of a build whose process was killed", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "s3whole-cache-"));
    const first = await buildLogDatabase([data], { cacheDir });
    first.remove();
    const [entry] = readdirSync(cacheDir);
    const stale = join(cacheDir, entry as string, `.build-${deadPid()}-abcdef`);
    mkdirSync(stale);
    writeFileSync(join(stale, "logs.duckdb"), Buffer.alloc(1024));
    // A changed file makes the next query build again.
    const f = join(runDir(data, ids[0] as string), "steps.jsonl");
    const t = new Date(Date.now() + 5000);
    utimesSync(f, t, t);
    const second = await buildLogDatabase([data], { cacheDir });
    second.remove();
    expect(second.fromCache).toBe(false);
    expect(existsSync(stale)).toBe(false);
  }, 60_000);
});

describe("view", () => {
  it("one run whose manifest is a JSON array, another's with wrong types: the others are shown as usual", async () => {
    const d = mkdtempSync(join(tmpdir(), "s3whole-man-"));
    cpData(d);
    writeFileSync(join(runDir(d, ids[0] as string), "manifest.json"), "[1, 2]\n");
    const m = JSON.parse(readFileSync(join(runDir(d, ids[1] as string), "manifest.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(runDir(d, ids[1] as string), "manifest.json"), JSON.stringify({ ...m, status: 5, game: [1] }));
    const out = mkdtempSync(join(tmpdir(), "s3whole-man-out-"));
    const s = await buildViewer({ dataDirs: [d], outDir: out, B: 20 });
    expect(s.runs).toBe(ids.length);
    const pages = readdirSync(join(out, "chunks"))
      .filter((f) => /^r\d+\.js$/.test(f))
      .map((f) => readFileSync(join(out, "chunks", f), "utf8"));
    expect(pages.some((p) => p.includes("manifest.json not used") && p.includes("expected object, received array"))).toBe(true);
  }, 60_000);

  it("kill -9 of the command leaves no writer: its child stops and writes nothing, and a rerun builds", async () => {
    const out = mkdtempSync(join(tmpdir(), "s3whole-view-"));
    const parent = spawn(process.execPath, [CLI, "view", "--data", data, "--out", out, "--bootstrap", "20"], { stdio: "ignore" });
    // The child is the re-run under a heap limit: kill the parent as soon as the child exists.
    let child: number | null = null;
    for (let i = 0; i < 200 && child === null; i++) {
      const r = spawnSync("pgrep", ["-P", String(parent.pid)], { encoding: "utf8" });
      const pid = Number(r.stdout.trim().split("\n")[0]);
      if (pid > 0) child = pid;
      else await new Promise((res) => setTimeout(res, 25));
    }
    expect(child).not.toBeNull();
    parent.kill("SIGKILL");
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 400 && alive(child as number); i++) await new Promise((res) => setTimeout(res, 50));
    expect(alive(child as number)).toBe(false);
    // Nothing was written behind the dead command: no page, no half-built chunks.
    expect(existsSync(join(out, "index.html"))).toBe(false);
    expect(readdirSync(out).filter((f) => f.startsWith(".chunks-"))).toEqual([]);
    const r = cli(["view", "--data", data, "--out", out, "--bootstrap", "20"]);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["chunks", "index.html"]);
  }, 60_000);

  it("SIGTERM to the command (not its group) stops it and its child: nothing is written, the exit is not 0", async () => {
    const out = mkdtempSync(join(tmpdir(), "s3whole-term-"));
    const parent = spawn(process.execPath, [CLI, "view", "--data", data, "--out", out, "--bootstrap", "20"], { stdio: "ignore" });
    const exited = new Promise<number | null>((res) => parent.on("exit", (code) => res(code)));
    let child = 0;
    for (let i = 0; i < 200 && child === 0; i++) {
      child =
        Number(
          spawnSync("pgrep", ["-P", String(parent.pid)], { encoding: "utf8" })
            .stdout.trim()
            .split("\n")[0],
        ) || 0;
      if (child === 0) await new Promise((res) => setTimeout(res, 25));
    }
    expect(child).toBeGreaterThan(0);
    parent.kill("SIGTERM");
    const code = await exited;
    expect(code).not.toBe(0);
    expect(existsSync(join(out, "index.html"))).toBe(false);
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      try {
        process.kill(child, 0);
        await new Promise((res) => setTimeout(res, 50));
      } catch {
        gone = true;
      }
    }
    expect(gone).toBe(true);
  }, 60_000);

  it("a build killed mid-way (its folder left behind) does not stop the next build, which removes that folder", () => {
    const out = mkdtempSync(join(tmpdir(), "s3whole-view2-"));
    expect(cli(["view", "--data", data, "--out", out, "--bootstrap", "20"]).status).toBe(0);
    // What kill -9 in the middle of writing leaves: a build folder of a dead process, chunks/ intact.
    const left = join(out, `.chunks-build-${deadPid()}`);
    mkdirSync(left);
    writeFileSync(join(left, "r0.js"), "S3V_CHUNK(");
    const r = cli(["view", "--data", data, "--out", out, "--bootstrap", "20"]);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(left)).toBe(false);
    expect(readdirSync(out).sort()).toEqual(["chunks", "index.html"]);
  }, 60_000);
});

/** Copies the test's data directory (its runs) into `to`. */
function cpData(to: string): void {
  for (const id of ids) {
    const from = runDir(data, id);
    const dest = runDir(to, id);
    mkdirSync(dest, { recursive: true });
    for (const f of readdirSync(from)) writeFileSync(join(dest, f), readFileSync(join(from, f)));
  }
  rmSync(join(to, "protocol.json"), { force: true });
}
