/**
 * Red team, issue 44 items 4 and 12: the protocol recoverable from the step logs, and data from a
 * newer kit never rewritten down.
 *
 * Before: with every manifest.json and protocol.json deleted, a rerun with `--reward-visibility
 * visible` (or a changed --context-tokens, --tokenizer, --history-cut, --strict-contract,
 * --eval-episodes) exited 0 and the rewritten manifests claimed a protocol the logs were not played
 * under; only --max-steps was caught. A manifest with `schema_version: 99` got no warning, `run`
 * rewrote it as version 1 dropping its unknown fields, and moved step lines of a changed type to
 * `.damaged` and played their episodes again.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { COMPARED, protocolFingerprint } from "../../src/runner/settings/protocolFingerprint.js";
import { DEFAULT_SETTINGS } from "../../src/runner/loop/context.js";

const BASE = ["--models", "builtin:random", "--pathways", "none,history", "--explore-episodes", "2", "--checkpoint-every", "1", "--eval-episodes", "1", "--max-steps", "4", "--progress", "off"];

async function run(argv: string[]): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: {}, ...io }), io);
  return { code, text: out.join("") };
}

/** Every manifest.json and the directory's protocol.json removed. */
function forgetProtocol(data: string): void {
  for (const r of readdirSync(join(data, "runs"))) rmSync(join(data, "runs", r, "manifest.json"), { force: true });
  rmSync(join(data, "protocol.json"), { force: true });
}

/** Every file of the data directory and its bytes (to show a refusal touched nothing). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const f of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, f.name);
      if (f.isDirectory()) walk(p);
      else out.set(p, readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

describe("a protocol change is refused from the logs alone", () => {
  const dir = mkdtempSync(join(tmpdir(), "s3-fp-"));
  const data = join(dir, "data");

  it("writes the protocol's fingerprint on every episode line", async () => {
    const r = await run([...BASE, "--games", "nullify", "--data", data]);
    expect(r.code, r.text).toBe(0);
    const runs = readdirSync(join(data, "runs"));
    expect(runs.length).toBe(2);
    for (const id of runs) {
      const lines = readFileSync(join(data, "runs", id, "episodes.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { protocol_fingerprint?: string });
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) expect(l.protocol_fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(new Set(lines.map((l) => l.protocol_fingerprint)).size).toBe(1);
    }
  }, 60_000);

  it.each([["--reward-visibility", "visible"], ["--context-tokens", "60000"], ["--tokenizer", "cl100k"], ["--history-cut", "per-step"], ["--strict-contract"], ["--eval-episodes", "2"]])(
    "every manifest and protocol.json deleted, a rerun with %s %s is refused (exit 2), touching nothing",
    async (...flag) => {
      forgetProtocol(data);
      const before = snapshot(data);
      const argv = [...BASE, "--games", "nullify", "--data", data, ...flag.filter((f) => f !== undefined)];
      const r = await run(argv);
      expect(r.code, r.text).toBe(2);
      expect(r.text).toMatch(/protocol_fingerprint/);
      expect(r.text).toMatch(/rerun with the original flags/);
      expect(snapshot(data)).toEqual(before);
    },
    60_000,
  );

  it("a run of another game planned into the directory is refused by the data directory's check too", async () => {
    forgetProtocol(data);
    const r = await run([...BASE, "--games", "snake", "--data", data, "--reward-visibility", "visible"]);
    expect(r.code, r.text).toBe(2);
    expect(r.text).toMatch(/already holds runs of another protocol: 2 runs .*protocol_fingerprint of its logs/);
    expect(existsSync(join(data, "runs", readdirSync(join(data, "runs")).find((x) => x.startsWith("snake")) ?? "none"))).toBe(false);
  }, 60_000);

  it("the same flags still resume", async () => {
    forgetProtocol(data);
    const r = await run([...BASE, "--games", "nullify", "--data", data]);
    expect(r.code, r.text).toBe(0);
  }, 60_000);

  it("the fingerprint follows the table's compared rows: each compared setting changes it, a setting not compared does not", () => {
    const base = protocolFingerprint({ ...DEFAULT_SETTINGS });
    expect(COMPARED).toContain("reward_visibility");
    expect(protocolFingerprint({ ...DEFAULT_SETTINGS, rewardVisibility: "visible" })).not.toBe(base);
    expect(protocolFingerprint({ ...DEFAULT_SETTINGS, contextTokens: DEFAULT_SETTINGS.contextTokens + 1 })).not.toBe(base);
    // Replicates share a directory: the run seed is not compared.
    expect(protocolFingerprint({ ...DEFAULT_SETTINGS, runSeed: 7 })).toBe(base);
  });
});

describe("data from a newer kit is refused, never rewritten down", () => {
  it("run refuses a manifest of schema_version 99 naming the upgrade, and moves or rewrites nothing; report leaves that run out, named", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3-newer-"));
    const data = join(dir, "data");
    expect((await run([...BASE, "--games", "nullify", "--pathways", "none", "--data", data])).code).toBe(0);
    const id = readdirSync(join(data, "runs"))[0]!;
    const runPath = join(data, "runs", id);
    const m = JSON.parse(readFileSync(join(runPath, "manifest.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(runPath, "manifest.json"), JSON.stringify({ ...m, schema_version: 99, status: "running", future_field: { x: 1 } }));
    // A step line whose field type changed in the newer version.
    const steps = readFileSync(join(runPath, "steps.jsonl"), "utf8").split("\n").filter(Boolean);
    steps[0] = JSON.stringify({ ...JSON.parse(steps[0]!), reward: "1/2", new_field: [1] });
    writeFileSync(join(runPath, "steps.jsonl"), steps.join("\n") + "\n");
    const before = snapshot(data);
    const r = await run([...BASE, "--games", "nullify", "--pathways", "none", "--data", data]);
    expect(r.code, r.text).toBe(2);
    expect(r.text).toMatch(/newer s3gym \(data schema version 99; this kit reads up to 1\).*upgrade s3gym/);
    expect(snapshot(data)).toEqual(before);
    expect(existsSync(join(runPath, "steps.jsonl.damaged"))).toBe(false);

    const warn = vi.fn();
    const ds = await loadDataset([data], { onWarning: warn });
    expect(ds.runs.map((x) => x.run_id)).not.toContain(id);
    expect(ds.warnings.join("\n")).toMatch(new RegExp(`left out run ${id}: .*newer s3gym .*upgrade`));
  }, 60_000);
});
