import { execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { humanSource, readSelfScore } from "../../src/cli/play/humanPlay.js";

const run = promisify(execFile);
const CLI = ["--import", "tsx", "src/cli/main.ts"];

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [...CLI, ...args], { cwd: process.cwd() });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("s3gym play", () => {
  it("prints a byte-identical --json transcript for the same seed, then the episode line", async () => {
    const args = ["play", "--game", "trust", "--config", "eval", "--seed", "4", "--policy", "heuristic", "--json"];
    const [a, b] = await Promise.all([cli(args), cli(args)]);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const lines = a.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const last = lines.at(-1);
    const steps = lines.slice(0, -1);
    expect(Object.keys(steps[0]).sort()).toEqual(["action", "done", "feedback", "observation", "reward", "score_after", "self_score", "step", "valid"]);
    expect(last.episode).toBe(true);
    expect(last.steps).toBe(steps.length);
    expect(last.score).toBeCloseTo(
      steps.reduce((s: number, x: { reward: number }) => s + x.reward, 0),
      9,
    );
  });

  it("replays an actions file, one action per line, and stops when it runs out", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3gym-play-"));
    const file = join(dir, "actions.txt");
    writeFileSync(file, "collaborate\n\ncheat\nnonsense\n");
    const r = await cli(["play", "--game", "trust", "--config", "explore", "--seed", "0", "--actions", file, "--json"]);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, -1).map((s) => [s.action, s.valid])).toEqual([
      ["collaborate", true],
      ["cheat", true],
      ["nonsense", false],
    ]);
    expect(lines.at(-1)).toMatchObject({ episode: true, steps: 3 });
  });

  it("rejects bad arguments with a one-line message naming the valid values", async () => {
    const bad = [
      [["play", "--game", "go", "--config", "eval", "--seed", "0"], /unknown --game 'go': expected one of chess, minesweeper/],
      [["play", "--game", "snake", "--config", "hard", "--seed", "0"], /unknown --config 'hard': expected one of explore, eval/],
      [["play", "--game", "snake", "--config", "eval", "--seed=-3"], /--seed must be a non-negative integer/],
      [["play", "--game", "snake", "--config", "eval", "--seed", "0", "--policy", "genius"], /unknown --policy 'genius': expected one of random, heuristic, perfect-judge, ceiling, human/],
      [["dance"], /unknown command 'dance'/],
    ] as const;
    for (const [args, message] of bad) {
      const r = await cli([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
    }
  });

  it("s3gym games lists every game with both configs", async () => {
    const r = await cli(["games", "--json"]);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.stdout);
    expect(Object.keys(parsed).sort()).toEqual(["chess", "minesweeper", "nullify", "pvz", "snake", "tetris", "trust"]);
    for (const g of Object.values(parsed) as { configs: Record<string, { maxSteps: number }> }[]) {
      expect(Object.keys(g.configs)).toEqual(["explore", "eval"]);
      expect(g.configs.eval.maxSteps).toBeGreaterThan(0);
    }
  });

  it("human play ends at the episode's end with stdin still open, asking each step for a self-score", async () => {
    // snake eval: a wall is fatal; from (5, 5) facing up, five UPs crash. stdin is never closed.
    const child = spawn(process.execPath, [...CLI, "play", "--game", "snake", "--config", "eval", "--seed", "0", "--policy", "human"], { cwd: process.cwd() });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.stdin.write("UP\n1\nUP\nabc\n\nUP\n0.5\nUP\n\nUP\n\nUP\n2\n");
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("still waiting"), 80_000).unref());
    const code = await Promise.race([exited, timeout]);
    if (code === "still waiting") child.kill();
    expect(code).toBe(0);
    expect(stdout).toContain("Enter for none");
    expect(stdout).toContain("'abc' is not a number");
    expect(stdout).toMatch(/moved UP {3}\(your self-score 1\)/);
    expect(stdout).toMatch(/episode over: score 0 after 5 steps \(you self-scored 2 of them\)/);
  }, 90_000);

  it("reads a typed self-score: Enter is none, a number is kept, anything else is asked again", async () => {
    expect(readSelfScore("")).toEqual({ score: null });
    expect(readSelfScore("  -1.5 ")).toEqual({ score: -1.5 });
    expect(readSelfScore("1e2")).toEqual({ score: 100 });
    expect(readSelfScore("one")).toHaveProperty("error");
    expect(readSelfScore("Infinity")).toHaveProperty("error");
    // Typed text is echoed made visible: an arrow key's escape sequence does not act on the terminal.
    expect(readSelfScore("\x1b[A")).toEqual({ error: "'\\x1b[A' is not a number: type a number, or press Enter for no self-score" });
    const lines = ["cheat", "x", "3", "collaborate", ""];
    const said: string[] = [];
    const source = humanSource(
      async () => lines.shift(),
      (s) => said.push(s),
      { prompts: false },
    );
    const ctx = { rules: "", observation: "", history: [] };
    expect(await source(ctx, {} as never)).toEqual({ action: "cheat", selfScore: 3 });
    expect(said).toEqual(["'x' is not a number: type a number, or press Enter for no self-score\n"]);
    expect(await source(ctx, {} as never)).toEqual({ action: "collaborate", selfScore: null });
    expect(await source(ctx, {} as never)).toBeUndefined();
  });
});
