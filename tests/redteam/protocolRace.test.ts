/**
 * Red team, issue 32 cases 2 and 3: the protocol of a data directory lives in more than manifests.
 *
 * Before: deleting a complete run's manifest.json let a rerun with `--max-steps 16` end "complete"
 * over 12-step episodes (and record max_steps 16); two runs started together with different
 * protocols both passed the one-protocol check (2 of 15 trials), each finding no manifest yet.
 * Now: `<data>/protocol.json` is claimed with an exclusive create, and a run without a manifest is
 * checked against what its steps and episodes show.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { manifestPath, runDir } from "../../src/logs/runDir.js";
import { PROTOCOL_FILE } from "../../src/runner/shards/dataDirProtocol.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { ConfigError } from "../../src/util/errors.js";
import { factory, small } from "../runner/helpers.js";

const STARTER = fileURLToPath(new URL("./fixtures/protocolStarter.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const entries = buildMatrix(["builtin:heuristic"], ["snake"], ["history"], 0);

function play(data: string, maxSteps: number) {
  return runMatrix({ dataDir: data, entries, settings: small({ maxSteps }), game: getGame, createModel: factory() });
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected the rerun to be refused");
}

describe("a deleted manifest", () => {
  it("a new run with another step cap is refused by the directory's protocol.json", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3proto-"));
    expect((await play(data, 12)).map((o) => o.status)).toEqual(["complete"]);
    rmSync(manifestPath(runDir(data, entries[0]!.runId)));
    const other = buildMatrix(["builtin:heuristic"], ["trust"], ["history"], 0);
    const message = await refusal(runMatrix({ dataDir: data, entries: other, settings: small({ maxSteps: 16 }), game: getGame, createModel: factory() }));
    expect(message).toContain(PROTOCOL_FILE);
    expect(message).toContain("max_steps: 12 -> 16");
  }, 30_000);

  it("the same run with another step cap: refused by what its steps show ('Step k of N'), protocol.json gone or not", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3proto-logs-"));
    await play(data, 12);
    rmSync(manifestPath(runDir(data, entries[0]!.runId)));
    rmSync(join(data, PROTOCOL_FILE));
    const message = await refusal(play(data, 16));
    expect(message).toMatch(/no manifest\.json.*step cap: 12 \(steps\.jsonl:\d+/);
    // The original flags resume it, and nothing was replayed under the other cap.
    expect((await play(data, 12)).map((o) => o.status)).toEqual(["complete"]);
    const steps = readFileSync(join(runDir(data, entries[0]!.runId), "steps.jsonl"), "utf8");
    expect(steps).not.toContain("of 16");
  }, 30_000);

  it("an unreadable protocol.json is refused with its name and the fix, never overwritten", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3proto-bad-"));
    writeFileSync(join(data, PROTOCOL_FILE), "{ torn");
    const message = await refusal(play(data, 12));
    expect(message).toContain(join(data, PROTOCOL_FILE));
    expect(message).toContain("delete it");
    expect(readFileSync(join(data, PROTOCOL_FILE), "utf8")).toBe("{ torn");
  });
});

function starter(ready: string, maxSteps: number, dirs: string[]): { ready: Promise<void>; done: Promise<void> } {
  const child = spawn(process.execPath, ["--import", "tsx", STARTER, ready, String(maxSteps), ...dirs], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  let onReady = () => {};
  const readyP = new Promise<void>((r) => (onReady = r));
  child.stdout.on("data", (b: Buffer) => {
    out += b.toString();
    if (out.includes("ready\n")) onReady();
  });
  const done = new Promise<void>((resolve, reject) => child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`starter exited ${code}`)))));
  return { ready: readyP, done };
}

describe("two starts at once with different protocols", () => {
  it("in 30 data directories, exactly one protocol passes the check in each", async () => {
    const root = mkdtempSync(join(tmpdir(), "s3proto-race-"));
    const dirs = Array.from({ length: 30 }, (_, i) => join(root, `d${i}`));
    for (const d of dirs) mkdirSync(d);
    const ready = join(root, "ready");
    const starters = [starter(ready, 12, dirs), starter(ready, 16, dirs)];
    await Promise.all(starters.map((s) => s.ready));
    writeFileSync(ready, "");
    await Promise.all(starters.map((s) => s.done));
    for (const d of dirs) {
      const owners = existsSync(join(d, "owners")) ? readFileSync(join(d, "owners"), "utf8").split("\n").filter(Boolean) : [];
      expect(owners.length, d).toBeGreaterThan(0);
      expect(new Set(owners).size, `${d}: ${owners.join(",")}`).toBe(1);
      expect(readdirSync(join(d, "runs")).length).toBe(owners.length);
    }
  }, 60_000);
});
