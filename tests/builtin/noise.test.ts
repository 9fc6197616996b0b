/**
 * The stochastic nulls, `builtin:random?noise=independent` and `builtin:heuristic?noise=independent`:
 * their evaluation play differs between checkpoints and pathways (independent draws, as a sampled
 * model's), while the plain forms replay the same draws everywhere (common random numbers); every
 * draw still comes from the recorded call identity (a rerun plays the same moves), and neither reads
 * the experience text (they cannot learn).
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildStepMessages } from "../../src/agent/stepPrompt.js";
import { BuiltinModel, makeBuiltinModel } from "../../src/builtin/builtinModel.js";
import { runCommand } from "../../src/cli/run/run.js";
import { HEURISTIC_NOISE_EPSILON } from "../../src/games/policies.js";
import { GAMES } from "../../src/games/registry.js";
import { readRunRecords } from "../../src/logs/reader.js";
import { parseModelSpec, specText, type BuiltinSpec } from "../../src/models/modelSpec.js";
import type { CallIdentity, CompletionRequest } from "../../src/models/types.js";

describe("the noise option's name", () => {
  it("parses for the text policies and prints back", () => {
    expect(parseModelSpec("builtin:random?noise=independent")).toEqual({ scheme: "builtin", policy: "random", noise: "independent" });
    expect(parseModelSpec("builtin:heuristic?noise=independent")).toEqual({ scheme: "builtin", policy: "heuristic", noise: "independent" });
    for (const t of ["builtin:random?noise=independent", "builtin:heuristic?noise=independent", "builtin:random"]) expect(specText(parseModelSpec(t))).toBe(t);
    expect(new BuiltinModel("heuristic", "independent").spec).toBe("builtin:heuristic?noise=independent");
  });
  it("is refused, naming the fix, on privileged policies, with an unknown mode or an unknown option", () => {
    expect(() => parseModelSpec("builtin:perfect-judge?noise=independent")).toThrow(/perfect-judge takes no options; only random\|heuristic\[\?noise=independent\]/);
    expect(() => parseModelSpec("builtin:random?noise=loud")).toThrow(/noise must be independent, got 'loud'/);
    expect(() => parseModelSpec("builtin:random?temperature=1")).toThrow(/unknown option 'temperature'/);
    expect(() => parseModelSpec("builtin:random?noise=independent&noise=independent")).toThrow(/given twice/);
    expect(() => parseModelSpec("builtin:genius?noise=independent")).toThrow(/unknown built-in policy/);
  });
});

/** A minesweeper step prompt at a fixed board with the given experience text. */
function request(identity: CallIdentity, experience: string, seed?: number): CompletionRequest {
  const game = GAMES.minesweeper;
  const messages = buildStepMessages({ rules: game.rules("eval"), experience, turns: [], observation: game.observe(game.reset(5, "eval")), rewardVisibility: "hidden" });
  return { messages, sampling: seed === undefined ? {} : { seed }, identity };
}
const id = (checkpoint: number, episode: number, runId = "r"): CallIdentity => ({ runId, purpose: "step", phase: "eval", checkpoint, episode, step: 0, sample: 0 });

describe("a noisy policy's answer", () => {
  it("ignores the request's seed (the evaluation's common random numbers) and the experience text", async () => {
    for (const policy of ["random", "heuristic"] as const) {
      const m = makeBuiltinModel(parseModelSpec(`builtin:${policy}?noise=independent`) as BuiltinSpec);
      for (let e = 0; e < 6; e++) {
        const a = (await m.complete(request(id(3, e), "", 11))).text;
        expect((await m.complete(request(id(3, e), "Lesson: always open the corners first.", 999))).text).toBe(a);
      }
    }
  });

  it("differs by checkpoint for the same board, where the plain policy does not", async () => {
    const noisy = new BuiltinModel("random", "independent");
    const plain = new BuiltinModel("random");
    const noisyAnswers = new Set<string>();
    const plainAnswers = new Set<string>();
    for (let x = 0; x < 10; x++) {
      noisyAnswers.add((await noisy.complete(request(id(x, 0), "", 7))).text);
      plainAnswers.add((await plain.complete(request(id(x, 0), "", 7))).text);
    }
    expect(plainAnswers.size).toBe(1);
    expect(noisyAnswers.size).toBeGreaterThan(5);
  });

  it("makes the heuristic play a random move on about HEURISTIC_NOISE_EPSILON of its steps", async () => {
    const noisy = new BuiltinModel("heuristic", "independent");
    const n = 400;
    // Every reply names the heuristic (the option draws its move, not its name): what changes is the move.
    const plain = (await new BuiltinModel("heuristic").complete(request(id(0, 0), ""))).text;
    let differ = 0;
    for (let i = 0; i < n; i++) if ((await noisy.complete(request(id(i, i % 7), ""))).text !== plain) differ++;
    // The plain heuristic opens this board the same way every time; a random opening is rarely that cell,
    // so the share that differs is about epsilon: Binomial(400, 0.1) lies within 0.03..0.15 with
    // probability > 0.999.
    expect(differ / n).toBeGreaterThan(0.03);
    expect(differ / n).toBeLessThan(HEURISTIC_NOISE_EPSILON + 0.05);
  });
});

describe("in a run", () => {
  async function play(data: string) {
    const models = "builtin:random,builtin:random?noise=independent,builtin:heuristic,builtin:heuristic?noise=independent";
    const argv = [
      "--models",
      models,
      "--games",
      "minesweeper",
      "--pathways",
      "none,history",
      "--data",
      data,
      "--explore-episodes",
      "3",
      "--checkpoint-every",
      "3",
      "--eval-episodes",
      "3",
      "--max-steps",
      "10",
      "--progress",
      "off",
    ];
    const err: string[] = [];
    expect(await runCommand(argv, { env: {}, stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } }), err.join("")).toBe(0);
    const out = new Map<string, Map<string, string>>();
    for (const run of readdirSync(join(data, "runs")).sort()) {
      const recs = await readRunRecords(join(data, "runs", run));
      const byEp = new Map<string, string>();
      for (const s of recs.steps.filter((s) => s.phase === "eval")) {
        const key = `${s.checkpoint}/${s.episode}`;
        byEp.set(key, `${byEp.get(key) ?? ""}|${s.action ?? ""}`);
      }
      out.set(run, byEp);
    }
    return out;
  }

  it("the noisy forms' evaluation play differs across checkpoints and pathways, is rerun identically, and the plain forms' does not differ", async () => {
    const a = await play(mkdtempSync(join(tmpdir(), "s3noise-a-")));
    const b = await play(mkdtempSync(join(tmpdir(), "s3noise-b-")));
    expect([...a.keys()]).toHaveLength(8);
    // A rerun from the same recorded seeds plays every move again.
    for (const [run, eps] of a) expect([...b.get(run)!.entries()]).toEqual([...eps.entries()]);
    const transcript = (model: string, pathway: string, x: number, e: number) => {
      const run = [...a.keys()].find((r) => r.includes(`__${pathway}__`) && r.includes(model) && (model.includes("noise") ? true : !r.includes("noise")))!;
      return a.get(run)!.get(`${x}/${e}`)!;
    };
    for (const policy of ["random", "heuristic"]) {
      let plainSame = 0;
      let noisyDiffer = 0;
      for (let e = 0; e < 3; e++) {
        for (const [p, x] of [
          ["none", 3],
          ["history", 0],
          ["history", 3],
        ] as const) {
          if (transcript(policy, p, x, e) === transcript(policy, "none", 0, e)) plainSame++;
          if (transcript(`${policy}-noise`, p, x, e) !== transcript(`${policy}-noise`, "none", 0, e)) noisyDiffer++;
        }
      }
      expect(plainSame, policy).toBe(9);
      expect(noisyDiffer, policy).toBeGreaterThanOrEqual(3);
    }
  });
});
