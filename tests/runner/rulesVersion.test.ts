/**
 * The games' rules version (src/games/version.ts): it is in every new manifest and in the episode
 * generator's key; data written under version 1 (tests/fixtures/data-v0, written by main b999829)
 * still loads, and resuming one of its runs under the new rules stops with a message that says why.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { episodeKey } from "../../src/games/envelope.js";
import { BOARDS_VERSION, RULES_VERSION } from "../../src/games/version.js";
import { checkRulesVersion } from "../../src/runner/settings/manifest.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/data-v0", import.meta.url));

function io() {
  const err: string[] = [];
  return { err, deps: { env: {}, stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } } };
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const run of readdirSync(join(dir, "runs"))) {
    for (const f of readdirSync(join(dir, "runs", run))) out[`${run}/${f}`] = readFileSync(join(dir, "runs", run, f), "utf8");
  }
  return out;
}

describe("games rules version", () => {
  it("is 3; the generator's key carries the boards version, 2 (version 3 changed pvz's scoring only)", () => {
    expect(RULES_VERSION).toBe(3);
    expect(BOARDS_VERSION).toBe(2);
    expect(episodeKey("trust", "eval", 7)).toBe("s3gym/v2|trust|eval|7");
  });

  it("a new run's manifest records it", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3rules-"));
    const argv = ["--models", "builtin:random", "--games", "trust", "--pathways", "none", "--data", data, "--explore-episodes", "0", "--eval-episodes", "1", "--max-steps", "2", "--progress", "off"];
    expect(await runCommand(argv, io().deps)).toBe(0);
    const [run] = readdirSync(join(data, "runs"));
    expect(JSON.parse(readFileSync(join(data, "runs", run!, "manifest.json"), "utf8")).rules_version).toBe(3);
    // Resuming under the same version is fine (nothing left to do).
    expect(await runCommand(argv, io().deps)).toBe(0);
  });

  it("a manifest without it played version 1; only the current version may resume", () => {
    expect(() => checkRulesVersion({}, "r")).toThrow(/run r was logged under games rules version 1, but this kit plays rules version 3/);
    expect(() => checkRulesVersion({ rules_version: 2 }, "r")).toThrow(/version 2/);
    expect(() => checkRulesVersion({ rules_version: 3 }, "r")).not.toThrow();
  });

  it("old (version 1) data still loads with its runs and scores", async () => {
    const ds = await loadDataset(FIXTURE);
    expect(ds.runs.length).toBe(7);
    expect(ds.warnings).toEqual([]);
  });

  it("resuming an old run under the new rules stops before any call, says why, and leaves its logs alone", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3rules-old-"));
    cpSync(FIXTURE, data, { recursive: true });
    const before = snapshot(data);
    // The exact invocation that wrote the fixture's trust run (tests/fixtures/README.md).
    const argv = [
      "--models",
      "builtin:heuristic",
      "--games",
      "trust",
      "--pathways",
      "none",
      "--explore-episodes",
      "3",
      "--checkpoint-every",
      "3",
      "--eval-episodes",
      "1",
      "--max-steps",
      "5",
      "--data",
      data,
      "--progress",
      "off",
    ];
    const o = io();
    expect(await withExitCode("run", () => runCommand(argv, o.deps), o.deps)).toBe(2);
    const text = o.err.join("");
    expect(text).toMatch(/logged under games rules version 1, but this kit plays rules version 3/);
    expect(text).toMatch(/mix two rule sets/);
    expect(text).toMatch(/another --data directory/);
    expect(snapshot(data)).toEqual(before);
  });
});
