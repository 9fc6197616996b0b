/**
 * `s3gym rejudge` against an external judge behind an OpenAI-compatible endpoint (`s3gym serve`'s
 * server, in process): every exploration step gets one judge call over HTTP, logged in calls.jsonl,
 * and the rejudged run is one that `s3gym report` (the judge_swap table's `external` contrast),
 * `s3gym view` and `s3gym sql` read. Uses the built CLI (dist/) for report, view and sql, as a user would.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { main, withExitCode } from "../../src/cli/main.js";
import { rejudgeCommand } from "../../src/cli/rejudge/rejudge.js";

const CLI = join(process.cwd(), "dist", "cli", "main.js");
const MODEL = "builtin:learner?judge=0.25";
const SCHEDULE = ["--explore-episodes", "4", "--checkpoint-every", "2", "--eval-episodes", "2", "--max-steps", "8"];

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function lines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 120_000, env: { ...process.env, OPENAI_API_KEY: "EMPTY" } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("rejudge with a served external judge", () => {
  it("logs one judge call per exploration step over HTTP, and report, view and sql read the rejudged run", async () => {
    server = await startServer({});
    const data = mkdtempSync(join(tmpdir(), "s3rejudge-served-"));
    const models = join(data, "models.json");
    writeFileSync(models, JSON.stringify({ models: [{ alias: "served-judge", spec: "openai:s3gym-heuristic", base_url: server.url }] }));
    expect(await main(["run", "--models", MODEL, "--games", "minesweeper", "--pathways", "none,history", "--data", data, ...SCHEDULE, "--progress", "off"])).toBe(0);
    const source = readdirSync(join(data, "runs")).find((d) => d.includes("__history__"))!;
    const err: string[] = [];
    const io = { stdout: { write: (_t: string) => true }, stderr: { write: (t: string) => err.push(t) } };
    const argv = ["--from", join(data, "runs", source), "--judge", "model:served-judge", "--models-file", models, "--progress", "off"];
    const code = await withExitCode("rejudge", () => rejudgeCommand(argv, { env: { OPENAI_API_KEY: "EMPTY" }, ...io }), io);
    expect(code, err.join("")).toBe(0);
    const rejudged = readdirSync(join(data, "runs")).find((d) => d.startsWith(`${source}__rejudge-model-served-judge-`));
    expect(rejudged).toBeDefined();
    const dir = join(data, "runs", rejudged!);
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(manifest.status).toBe("complete");
    expect(manifest.config.protocol.judge).toBe("model:served-judge");
    // One judge call per recorded exploration step, each answered by the endpoint (not a replay).
    const explore = lines(join(dir, "steps.jsonl")).filter((s) => s.phase === "explore");
    const judgeCalls = lines(join(dir, "calls.jsonl")).filter((c) => c.purpose === "judge");
    expect(explore.length).toBeGreaterThan(0);
    expect(judgeCalls.length).toBe(explore.length);
    expect(judgeCalls.every((c) => c.phase === "explore" && c.cached === false)).toBe(true);
    expect(explore.every((s) => s.experience_score_source === "model:served-judge" && typeof s.experience_score === "number")).toBe(true);

    // report: the judge_swap table pairs the rejudged run with its source (an `external` contrast).
    const out = join(data, "figures");
    const rep = cli(["report", "--data", data, "--out", out, "--bootstrap", "50"]);
    expect(rep.status, rep.stderr).toBe(0);
    const csv = readFileSync(join(out, "tables", "judge_swap.csv"), "utf8").split("\n");
    const external = csv.filter((l) => l.includes(",external,"));
    expect(external.length).toBe(1);
    expect(external[0]).toContain("model:served-judge - self");
    // view: the rejudged run is in the viewer's run index, with its steps in a chunk of their own.
    const viewOut = join(data, "view");
    const view = cli(["view", "--data", data, "--out", viewOut, "--bootstrap", "20"]);
    expect(view.status, view.stderr).toBe(0);
    expect(readFileSync(join(viewOut, "chunks", "index.js"), "utf8")).toContain(rejudged!);
    const chunks = readdirSync(join(viewOut, "chunks")).filter((f) => f !== "index.js");
    expect(chunks.filter((f) => readFileSync(join(viewOut, "chunks", f), "utf8").includes(rejudged!)).length).toBeGreaterThan(0);
    // sql: the judge calls are queryable by run.
    const sql = cli(["sql", "--data", data, "--no-cache", "--json", `select count(*) as n from calls where purpose = 'judge' and run_id = '${rejudged}'`]);
    expect(sql.status, sql.stderr).toBe(0);
    expect(JSON.parse(sql.stdout)).toEqual([{ n: explore.length }]);
  }, 240_000);
});
