/**
 * The parse rule as a run uses it: `last-answer` by default, `--strict-contract` for the literal
 * contract; recorded in the manifest (config.protocol.parse_rule), and a resume under the other rule
 * is refused.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { getGame } from "../../src/games/registry.js";
import type { ParseRule } from "../../src/agent/parseResponse.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, lines, RewritingModel, small } from "./helpers.js";

/** Answers like gemini-2.5-pro: the contract lines inside a code fence, so the last line is the fence. */
const fenced = (text: string) => `Let me think.\n\n\`\`\`text\n${text}\n\`\`\``;

async function play(rule: ParseRule, data = mkdtempSync(join(tmpdir(), "s3rule-"))) {
  const entries = buildMatrix(["builtin:heuristic"], ["snake"], ["none"], 0);
  const settings = small({ exploreEpisodes: 0, evalEpisodes: 1, maxSteps: 4, parseRule: rule });
  await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory((_n, m) => new RewritingModel(m, fenced)) });
  const dir = join(data, "runs", entries[0]!.runId);
  return {
    data,
    entries,
    settings,
    manifest: JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")),
    steps: lines<{ action: string | null; self_score: number | null; parse_error: string | null }>(dir, "steps.jsonl"),
  };
}

describe("the parse rule of a run", () => {
  it("last-answer (default) reads a fenced reply; strict-contract records each step as a parse failure naming the rule", async () => {
    const lenient = await play("last-answer");
    expect(lenient.manifest.config.protocol.parse_rule).toBe("last-answer");
    expect(lenient.steps.length).toBeGreaterThan(0);
    for (const s of lenient.steps) {
      expect(s.action).toMatch(/^(UP|DOWN|LEFT|RIGHT)$/);
      expect(s.self_score).not.toBeNull();
      expect(s.parse_error).toBeNull();
    }
    const strict = await play("strict-contract");
    expect(strict.manifest.config.protocol.parse_rule).toBe("strict-contract");
    for (const s of strict.steps) {
      expect(s.action).toBeNull();
      expect(s.parse_error).toBe("the response does not end with 'Answer: <action>' and 'Score: <number>' lines (rule strict-contract)");
    }
  });

  it("a run directory refuses to continue under the other rule, naming parse_rule", async () => {
    const first = await play("last-answer");
    await expect(runMatrix({ dataDir: first.data, entries: first.entries, settings: { ...first.settings, parseRule: "strict-contract" }, game: getGame, createModel: factory() })).rejects.toThrow(
      /parse_rule: "last-answer" -> "strict-contract"/,
    );
  });

  it("a manifest from before parse_rule was recorded resumes only under --strict-contract (what it was read by)", async () => {
    const first = await play("strict-contract");
    const path = join(first.data, "runs", first.entries[0]!.runId, "manifest.json");
    const old = JSON.parse(readFileSync(path, "utf8"));
    delete old.config.protocol.parse_rule;
    writeFileSync(path, JSON.stringify(old));
    await expect(runMatrix({ dataDir: first.data, entries: first.entries, settings: { ...first.settings, parseRule: "last-answer" }, game: getGame, createModel: factory() })).rejects.toThrow(
      /parse_rule: "strict-contract" -> "last-answer"/,
    );
    await runMatrix({ dataDir: first.data, entries: first.entries, settings: first.settings, game: getGame, createModel: factory() });
  });

  it("s3gym run --strict-contract records the rule; the same command without it is refused on the same data", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3rulecli-"));
    const argv = ["--models", "builtin:random", "--games", "trust", "--pathways", "none", "--data", data, "--explore-episodes", "0", "--eval-episodes", "1", "--max-steps", "2", "--progress", "off"];
    const err: string[] = [];
    const deps = { env: {}, stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
    expect(await runCommand([...argv, "--strict-contract"], deps)).toBe(0);
    const dir = readdirSync(join(data, "runs"))[0]!;
    expect(JSON.parse(readFileSync(join(data, "runs", dir, "manifest.json"), "utf8")).config.protocol.parse_rule).toBe("strict-contract");
    expect(await withExitCode("run", () => runCommand(argv, deps), deps)).toBe(2);
    expect(err.join("")).toMatch(/parse_rule: "strict-contract" -> "last-answer"/);
  });
});
