/**
 * One protocol per data directory (endpoints issue item 8): `s3gym run` refuses, before any call, a
 * matrix whose schedule differs from the runs already in `--data`, naming each differing field with
 * both values; the same protocol (other models, other games) is accepted; runs that cannot say their
 * protocol (no manifest, a manifest without config.protocol) and runs without a protocol loop
 * (BuildSFT's exploration-only runs) are left out.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { runId } from "../../src/runner/settings/runId.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { factory, implementedGames, small } from "./helpers.js";
import { getGame } from "../../src/games/registry.js";

const game = implementedGames()[0]!;

function argv(data: string, model: string, extra: string[] = []): string[] {
  return ["--models", model, "--games", game, "--pathways", "none", "--data", data, "--explore-episodes", "0", "--eval-episodes", "1", "--max-steps", "2", "--progress", "off", ...extra];
}

async function run(args: string[]) {
  const err: string[] = [];
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(args, { env: {}, ...io }), io);
  return { code, err: err.join("") };
}

const idOf = (model: string) => runId({ game, pathway: "none", model, runSeed: 0 });

describe("one protocol per data directory", () => {
  it("refuses a run of another schedule with exit 2, naming the field and both values, before anything is written", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ddp-"));
    expect((await run(argv(data, "builtin:random"))).code).toBe(0);
    const r = await run(argv(data, "builtin:heuristic", ["--max-steps", "3", "--eval-episodes", "2"]));
    expect(r.code).toBe(2);
    // Both differing numbers, old -> planned, and the run that holds the other protocol.
    expect(r.err).toContain("eval_episodes: 1 -> 2");
    expect(r.err).toContain("max_steps: 2 -> 3");
    expect(r.err).toContain(idOf("builtin:random"));
    expect(r.err).toMatch(/use another --data directory/);
    // Refused at planning: the new run's directory was never made.
    expect(existsSync(join(data, "runs", idOf("builtin:heuristic")))).toBe(false);
  });

  it("accepts other models under the same protocol, and counts the runs of one clash", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ddp-"));
    expect((await run(argv(data, "builtin:random"))).code).toBe(0);
    expect((await run(argv(data, "builtin:heuristic"))).code).toBe(0);
    expect(readdirSync(join(data, "runs")).sort()).toEqual([idOf("builtin:heuristic"), idOf("builtin:random")].sort());
    const r = await run(argv(data, "builtin:learner", ["--context-tokens", "50000"]));
    expect(r.code).toBe(2);
    const first = [idOf("builtin:heuristic"), idOf("builtin:random")].sort()[0]!;
    expect(r.err).toContain(`2 runs (e.g. ${first}) differ: context_tokens: 100000 -> 50000`);
  });

  it("also holds for runMatrix (the library entry point): a ConfigError before any call", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ddp-"));
    const make = factory();
    await runMatrix({ dataDir: data, entries: buildMatrix(["builtin:random"], [game], ["none"], 0), settings: small({ exploreEpisodes: 0 }), game: getGame, createModel: make });
    let calls = 0;
    const counting = factory((_n, m) => ({ spec: m.spec, endpointHost: m.endpointHost, complete: (req) => (calls++, m.complete(req)) }));
    await expect(
      runMatrix({
        dataDir: data,
        entries: buildMatrix(["builtin:heuristic"], [game], ["none"], 0),
        settings: small({ exploreEpisodes: 0, tokenizer: "cl100k" }),
        game: getGame,
        createModel: counting,
      }),
    ).rejects.toThrow(/tokenizer: "o200k" -> "cl100k"/);
    expect(calls).toBe(0);
  });

  it("leaves out runs that cannot say their protocol and exploration-only runs", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ddp-"));
    expect((await run(argv(data, "builtin:random"))).code).toBe(0);
    const manifestFile = join(data, "runs", idOf("builtin:random"), "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    // BuildSFT's exploration runs have no checkpoint schedule: not compared.
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, config: { ...manifest.config, invocation: { ...manifest.config.invocation, exploration_only: true } } }));
    // A directory from before protocol.json (which would refuse the new step cap on its own: protocolRace.test.ts).
    rmSync(join(data, "protocol.json"));
    expect((await run(argv(data, "builtin:heuristic", ["--max-steps", "3"]))).code).toBe(0);
    // A manifest from before config.protocol was recorded, and a directory without a manifest.
    const { protocol: _p, ...noProtocol } = manifest.config;
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, config: noProtocol }));
    mkdirSync(join(data, "runs", "hand-made-run"));
    expect((await run(argv(data, "builtin:learner", ["--max-steps", "3"]))).code).toBe(0);
    // The control: the heuristic run (max_steps 3) is a readable protocol, so max_steps 2 is refused.
    const r = await run(argv(data, "builtin:learner?judge=0.25", ["--max-steps", "2"]));
    expect(r.code).toBe(2);
    expect(r.err).toContain("max_steps: 3 -> 2");
  });
});
