/**
 * Ctrl-C of `s3gym run` (SIGINT to a real child process, as a terminal sends it): it prints what
 * finished, what is resumable with its episodes done / planned, and the exact command that resumes
 * (no key in it), then exits 130; `s3gym status` shows the same counts and command; and the printed
 * command, run as printed, completes the run without replaying a logged episode.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { statusCommand } from "../../src/cli/status/status.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = join(ROOT, "src", "cli", "main.ts");
const TSX = import.meta.resolve("tsx");
const KEY = "sk-INTERRUPT-SENTINEL-0000aaaa";

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function episodesLogged(data: string): number {
  const runs = join(data, "runs");
  if (!existsSync(runs)) return 0;
  return readdirSync(runs).reduce((n, id) => {
    const f = join(runs, id, "episodes.jsonl");
    return (
      n +
      (existsSync(f)
        ? readFileSync(f, "utf8")
            .split("\n")
            .filter((l) => l.includes('"status":"ok"')).length
        : 0)
    );
  }, 0);
}

describe("Ctrl-C of s3gym run", () => {
  it("prints finished / resumable / the resume command, exits 130; status agrees; the command resumes", async () => {
    server = await startServer({ latencyMs: 40 });
    const cwd = mkdtempSync(join(tmpdir(), "s3int-"));
    const args = [
      "run",
      "--models",
      "openai:s3gym-heuristic",
      "--base-url",
      server.url,
      "--games",
      "snake",
      "--pathways",
      "none",
      "--data",
      "data",
      "--explore-episodes",
      "3",
      "--checkpoint-every",
      "1",
      "--eval-episodes",
      "1",
      "--max-steps",
      "6",
      "--progress",
      "off",
      "--no-preflight",
    ];
    const env = { ...process.env, OPENAI_API_KEY: KEY };
    const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    const data = join(cwd, "data");
    // Interrupted once the first episode is logged whole, long before the 3 + 4 episodes are all played.
    for (let i = 0; i < 600 && episodesLogged(data) < 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(episodesLogged(data)).toBeGreaterThanOrEqual(1);
    child.kill("SIGINT");
    const { code } = await exit;
    expect(code).toBe(130);
    expect(err).toMatch(/interrupted \(Ctrl-C\)/);
    const [runId] = readdirSync(join(data, "runs"));
    const line = new RegExp(`resumable\\t${runId}\\t(\\d+)/7 episodes`).exec(err);
    expect(line, err).not.toBeNull();
    expect(Number(line![1])).toBeGreaterThanOrEqual(1);
    expect(err).toMatch(/0 of 1 run finished, 1 to resume/);
    const resume = err
      .split("\n")
      .find((l) => l.trim().startsWith("cd "))!
      .trim();
    expect(resume).toBe(`cd ${cwd} && s3gym ${args.join(" ")}`);
    expect(err).not.toContain(KEY);

    // status reads the same counts and prints the same command.
    let out = "";
    expect(await statusCommand(["--data", data], { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true } })).toBe(1);
    expect(out).toMatch(new RegExp(`partial\\s*\\t${runId}\\t.*\\t${line![1]}/7 episodes done`));
    expect(out).toContain(`\n  ${resume}\n`);

    // The printed command, run by a shell where `s3gym` is the kit, finishes the run.
    const shim = `s3gym() { "${process.execPath}" --import "${TSX}" "${MAIN}" "$@"; }; ${resume}`;
    // Asynchronously: the server answering it lives in this process.
    const resumed = spawn("bash", ["-c", shim], { env, stdio: ["ignore", "ignore", "pipe"] });
    let resumedErr = "";
    resumed.stderr.on("data", (b: Buffer) => (resumedErr += b.toString()));
    const status = await new Promise<number | null>((resolve) => resumed.on("exit", (c) => resolve(c)));
    expect(status, resumedErr).toBe(0);
    const episodes = readFileSync(join(data, "runs", runId!, "episodes.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { phase: string; checkpoint: number; episode: number; status: string });
    const keys = episodes.filter((e) => e.status === "ok").map((e) => `${e.phase}|${e.checkpoint}|${e.episode}`);
    expect(new Set(keys).size).toBe(7);
    expect(keys).toHaveLength(7);
  }, 90_000);
});
