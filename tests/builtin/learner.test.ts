/**
 * builtin:learner's parts, on hand-made prompts: its name and options, the same answers in process
 * and over HTTP, what it reads from History blocks (truncated ones too) and from its own memory, the
 * judge dial, and the tactic rule (untried first, upper confidence bound, greedy evaluation).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStepMessages, messagesToPolicyContext } from "../../src/agent/stepPrompt.js";
import { buildSummaryMessages } from "../../src/agent/summaryPrompt.js";
import { renderTrajectory, type Trajectory } from "../../src/agent/trajectoryText.js";
import { chooseTactic } from "../../src/builtin/learner/choose.js";
import { parseEpisodeBlocks, parseMemoryText, statsFromEpisodes } from "../../src/builtin/learner/experienceText.js";
import { answerLearner, learnerStep, readExperience } from "../../src/builtin/learner/learner.js";
import { LearnerModel } from "../../src/builtin/learner/model.js";
import { learnerSummary } from "../../src/builtin/learner/summary.js";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { getGame } from "../../src/games/registry.js";
import { TACTIC_SETS } from "../../src/games/tacticSets.js";
import { GAME_NAMES } from "../../src/games/types.js";
import { parseModelSpec } from "../../src/models/modelSpec.js";
import type { ChatMessage } from "../../src/models/types.js";
import { runId } from "../../src/runner/settings/runId.js";
import { Rng } from "../../src/util/rng.js";

const identity = { runId: "r", purpose: "step" as const, phase: "explore" as const, checkpoint: null, episode: 1, step: 0, sample: 0 };

function traj(episode: number, tactic: string, scores: number[]): Trajectory {
  return {
    episode,
    steps: scores.map((s, i) => ({ observation: `Step ${i + 1} of 9\nboard ${i}`, action: `a${i}`, selfScore: s, feedback: "ok", tactic })),
    endObservation: "done",
  };
}

describe("names and options", () => {
  it("parses judge and checkpoint options and names the bad one", () => {
    expect(parseModelSpec("builtin:learner")).toEqual({ scheme: "builtin", policy: "learner", learner: { judge: 1, checkpoint: null } });
    expect(parseModelSpec("builtin:learner?judge=0.3")).toEqual({ scheme: "builtin", policy: "learner", learner: { judge: 0.3, checkpoint: null } });
    expect(parseModelSpec("builtin:learner@d/ck.json?judge=0")).toEqual({ scheme: "builtin", policy: "learner", learner: { judge: 0, checkpoint: "d/ck.json" } });
    expect(() => parseModelSpec("builtin:learner?judge=2")).toThrow(/model 'builtin:learner\?judge=2': judge must be a number in 0..1, got '2'/);
    expect(() => parseModelSpec("builtin:learner?temp=1")).toThrow(/unknown learner option 'temp'/);
    expect(() => parseModelSpec("builtin:learner@")).toThrow(/checkpoint file after '@' is empty/);
    expect(() => parseModelSpec("builtin:learnerx")).toThrow(/unknown built-in policy 'learnerx'/);
  });

  it("options are part of the model identity (run id)", () => {
    const a = runId({ game: "snake", pathway: "history", model: "builtin:learner", runSeed: 0 });
    const b = runId({ game: "snake", pathway: "history", model: "builtin:learner?judge=0.3", runSeed: 0 });
    expect(a).not.toBe(b);
    expect(new LearnerModel({ judge: 0.3, checkpoint: null }).spec).toBe("builtin:learner?judge=0.3");
  });

  it("a missing checkpoint fails when the model is made, naming the file", () => {
    expect(() => new LearnerModel({ judge: 1, checkpoint: "/nonexistent/ck.json" })).toThrow(/learner checkpoint '\/nonexistent\/ck.json': cannot read it/);
  });
});

/** A mid-episode step prompt of `game` with a History experience block. */
function prompt(game: string, experience: string): ChatMessage[] {
  const g = getGame(game);
  let s = g.reset(5, "explore");
  const rules = g.rules("explore");
  const turns = [];
  for (let i = 0; i < 2 && !s.done; i++) {
    const obs = g.observe(s);
    const action = g.legalActions(s)[0] ?? "pass";
    const r = g.step(s, action);
    turns.push({ observation: obs, response: `Tactic: ${TACTIC_SETS[g.name].tactics[1]!.name}\nAnswer: ${action}\nScore: 0`, feedback: r.feedback });
    s = r.state;
  }
  return buildStepMessages({ rules, experience, turns, observation: g.observe(s), rewardVisibility: "hidden" });
}

describe("the same answers in process and over HTTP", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ policy: "heuristic" });
  });
  afterAll(() => server.close());

  it("every game, with a request seed, with and without options", async () => {
    const exp = renderTrajectory(traj(1, "careless", [1, 0]));
    for (const game of GAME_NAMES) {
      for (const [name, judge] of [
        ["learner", 1],
        ["learner?judge=0.5", 0.5],
      ] as const) {
        const messages = prompt(game, exp);
        const local = await new LearnerModel({ judge, checkpoint: null }).complete({ messages, sampling: { seed: 77 }, identity });
        const res = await fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: name, messages, seed: 77 }) });
        const body = (await res.json()) as { choices: { message: { content: string } }[] };
        expect(body.choices[0]!.message.content, `${game} ${name}`).toBe(local.text);
        // The episode keeps the tactic its earlier replies named.
        expect(local.text.split("\n")[0]).toBe(`Tactic: ${TACTIC_SETS[game].tactics[1]!.name}`);
        expect(local.text).toMatch(/\nAnswer: .+\nScore: -?[0-9.]+$/);
      }
    }
  });

  it("a bad learner option in the request's model is a 400 naming it", async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "learner?judge=x", messages: prompt("snake", "") }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/judge must be a number in 0..1, got 'x'/);
  });
});

describe("what it reads from experience", () => {
  it("sums its own self-scores per History block; a truncated block counts only its visible steps", () => {
    const text = [renderTrajectory(traj(1, "flat", [1, 2, 0.5])), renderTrajectory(traj(2, "careless", [4, 4, 4]), 1), renderTrajectory(traj(3, "flat", [0, 1]))].join("\n\n");
    const eps = parseEpisodeBlocks(text);
    expect(eps.map((e) => [e.episode, e.tactic, e.selfReturn, e.steps.length, e.truncated])).toEqual([
      [1, "flat", 3.5, 3, false],
      [2, "careless", 4, 1, true],
      [3, "flat", 1, 2, false],
    ]);
    expect(eps[0]!.steps[1]).toEqual({ observation: "Step 2 of 9\nboard 1", action: "a1", feedback: "ok" });
    expect([...statsFromEpisodes(eps)]).toEqual([
      ["flat", { n: 2, sum: 4.5 }],
      ["careless", { n: 1, sum: 4 }],
    ]);
  });

  it("its summary keeps every tried tactic's mean and count, and reading it back gives them", () => {
    const rules = getGame("tetris").rules("explore");
    const first = learnerSummary(buildSummaryMessages({ rules, previous: null, trajectory: renderTrajectory(traj(1, "flat", [1, 2])) }));
    expect(first).toContain("- tactic flat: mean self-score 3 over 1 episode");
    expect(first).toMatch(/next: try (careless|random-drop|tall-stack) \(untried\)/);
    const prevTriple = { retain: first.split("## ")[1]!.split("\n").slice(1).join("\n").trim(), avoid: "- nothing yet", next: "- x" };
    const second = learnerSummary(buildSummaryMessages({ rules, previous: prevTriple, trajectory: renderTrajectory(traj(2, "careless", [0, 0.5])) }));
    const back = parseMemoryText(second).stats;
    expect([...back].sort()).toEqual([
      ["careless", { n: 1, sum: 0.5 }],
      ["flat", { n: 1, sum: 3 }],
    ]);
    // What the summary left out is gone: a memory without a tactic's line teaches nothing about it.
    expect(parseMemoryText("## Strategies to retain\n- flat is good").stats.size).toBe(0);
  });
});

describe("trust: opponent knowledge from its transcripts", () => {
  /** An explore episode of `tactic` against a given opponent, as a History trajectory. */
  function trustEpisode(episode: number, opponent: string, actions: string[]): Trajectory {
    const g = getGame("trust");
    const base = g.reset(episode, "explore");
    let s = g.fromState({ ...base, inner: { opponent, history: [] } });
    const out: Trajectory["steps"] = [];
    for (const a of actions) {
      const obs = g.observe(s);
      const r = g.step(s, a);
      out.push({ observation: obs, action: a, selfScore: r.reward, feedback: r.feedback, tactic: "always-cheat" });
      s = r.state;
    }
    return { episode, steps: out, endObservation: g.observe(s) };
  }

  it("History blocks give the opponents met; its summary keeps them and reading it back gives them", () => {
    const exp = [renderTrajectory(trustEpisode(1, "always-collaborate", ["cheat", "cheat", "cheat"])), renderTrajectory(trustEpisode(2, "always-cheat", ["cheat", "cheat"]))].join("\n\n");
    const read = readExperience(exp, TACTIC_SETS.trust.learn);
    // Three cheats answered by collaborate: only always-collaborate. Two cheats answered by cheat: only
    // always-cheat (every other deterministic strategy collaborates on a round's first move).
    expect(read.knowledge.opponents).toEqual([
      { n: 1, types: ["always-cheat"] },
      { n: 1, types: ["always-collaborate"] },
    ]);
    const rules = getGame("trust").rules("explore");
    const summary = learnerSummary(buildSummaryMessages({ rules, previous: null, trajectory: renderTrajectory(trustEpisode(1, "always-collaborate", ["cheat", "cheat", "cheat"])) }));
    expect(summary).toContain("- opponent met in 1 episode: always-collaborate");
    expect(parseMemoryText(summary).opponents).toEqual([{ n: 1, types: ["always-collaborate"] }]);
    // Outside text: an unknown strategy name is dropped, a line without any known one is ignored.
    expect(parseMemoryText("- opponent met in 3 episodes: copycat or wizard\n- opponent met in 2 episodes: wizard").opponents).toEqual([{ n: 3, types: ["copycat"] }]);
  });

  it("with those opponents in its History, probe-exploit plays differently than without (the knowledge reaches the tactic)", () => {
    const exp = [1, 2, 3].map((e) => renderTrajectory(trustEpisode(e, "always-collaborate", ["cheat", "cheat", "cheat"]))).join("\n\n");
    // Mid-episode prompt: probe-exploit named, two collaborations answered by collaborate.
    const g = getGame("trust");
    const rules = g.rules("explore");
    let s = g.fromState({ ...g.reset(9, "explore"), inner: { opponent: "always-collaborate", history: [] } });
    const turns: Array<{ observation: string; response: string; feedback: string }> = [];
    for (const a of ["collaborate", "collaborate"]) {
      const obs = g.observe(s);
      const r = g.step(s, a);
      turns.push({ observation: obs, response: `Tactic: probe-exploit\nAnswer: ${a}\nScore: 0`, feedback: r.feedback });
      s = r.state;
    }
    const ask = (experience: string) => learnerStep(buildStepMessages({ rules, experience, turns, observation: g.observe(s), rewardVisibility: "hidden" }), { judge: 1, checkpoint: null }, 3)!;
    const without = ask("");
    const withKnowledge = ask(exp);
    expect(without.tactic).toBe("probe-exploit");
    expect(withKnowledge.tactic).toBe("probe-exploit");
    // The uniform prior still fears a copycat or grudger and collaborates; three always-collaborate
    // episodes make it cheat (measured; the exact values are the planner's).
    expect(without.text).toContain("Answer: collaborate");
    expect(withKnowledge.text).toContain("Answer: cheat");
  });
});

describe("the judge dial", () => {
  it("judge 1 reports the tactic's own estimate; judge 0 an uninformed centred draw", () => {
    const messages = prompt("tetris", "");
    const estimates = new Set<string>();
    const noisy: number[] = [];
    for (let seed = 0; seed < 40; seed++) {
      const fair = learnerStep(messages, { judge: 1, checkpoint: null }, seed)!;
      const set = TACTIC_SETS.tetris;
      const t = set.tactics.find((x) => x.name === fair.tactic)!;
      // Same generator stream as the learner's "act" purpose: the fair score is the policy's estimate.
      const d = t.policy(messagesToPolicyContext(messages)!, Rng.fromKey(`learner|act|seed|${seed}`), {});
      expect(fair.text).toBe(`Tactic: ${fair.tactic}\nAnswer: ${d.action}\nScore: ${Math.round(d.selfScore * 1000) / 1000}`);
      estimates.add(fair.text);
      const zero = learnerStep(messages, { judge: 0, checkpoint: null }, seed)!;
      noisy.push(Number(zero.text.split("Score: ")[1]));
    }
    // tetris' estimate range is [0, 2]: an uninformed score is uniform on [-2, 2], mean near 0.
    expect(Math.min(...noisy)).toBeGreaterThanOrEqual(-2);
    expect(Math.max(...noisy)).toBeLessThanOrEqual(2);
    expect(noisy.some((x) => x < 0)).toBe(true);
    expect(Math.abs(noisy.reduce((a, b) => a + b, 0) / noisy.length)).toBeLessThan(0.6);
  });

  it("summary prompts get the summary, other prompts null", () => {
    expect(answerLearner([{ role: "user", content: "hello" }], { judge: 1, checkpoint: null }, 1)).toBeNull();
  });
});

describe("the tactic rule", () => {
  const names = ["a", "b", "c"];
  const rng = () => Rng.fromKey("t");
  it("exploration tries untried tactics first", () => {
    const stats = new Map([["a", { n: 1, sum: 5 }]]);
    const t = chooseTactic(names, stats, "explore", null, rng()).tactic;
    expect(["b", "c"]).toContain(t);
  });
  it("then the upper confidence bound: a rarely tried tactic with a close mean beats a frequent one", () => {
    // means a 2.0 (n 8), b 1.8 (n 1), c 0 (n 1); spread 2, N 10: a 2 + 0.5*2*sqrt(2 ln10 / 8) = 2.759,
    // b 1.8 + 1*sqrt(2 ln10) = 3.946, c 0 + 2.146 = 2.146.
    const stats = new Map([
      ["a", { n: 8, sum: 16 }],
      ["b", { n: 1, sum: 1.8 }],
      ["c", { n: 1, sum: 0 }],
    ]);
    expect(chooseTactic(names, stats, "explore", null, rng()).tactic).toBe("b");
    // Evaluation is greedy: the best mean.
    expect(chooseTactic(names, stats, "eval", null, rng()).tactic).toBe("a");
  });
  it("with no experience: a uniform draw, or the checkpoint's prior (evaluation draws only from it)", () => {
    const picks = new Set<string>();
    for (let i = 0; i < 30; i++) picks.add(chooseTactic(names, new Map(), "eval", { b: 5 }, Rng.fromKey(`p${i}`)).tactic);
    expect([...picks]).toEqual(["b"]);
    const uniform = new Set<string>();
    for (let i = 0; i < 30; i++) uniform.add(chooseTactic(names, new Map(), "eval", null, Rng.fromKey(`p${i}`)).tactic);
    expect(uniform.size).toBe(3);
  });
});

describe("without scores (a judge swap's none)", () => {
  // A History of tetris with no Self-score line (judge none): flat played in 6 episodes, careless and
  // tall-stack in 1 each, random-drop never. Every shown tactic ties at 0, so each evaluation episode
  // draws one of the three alike: about 20 of 60 each (binomial sd 3.7), never random-drop. A reader
  // that weighed tactics by how often they were played would pick flat in about 45 of 60.
  const g = getGame("tetris");
  const s = g.reset(11, "eval");
  const noScores = (episode: number, tactic: string): Trajectory => ({ ...traj(episode, tactic, [3, 1]), scoresShown: false });
  const tactics = ["flat", "flat", "flat", "careless", "flat", "tall-stack", "flat", "flat"];
  const experience = tactics.map((t, i) => renderTrajectory(noScores(i + 1, t))).join("\n\n");
  const messages = buildStepMessages({ rules: g.rules("eval"), experience, turns: [], observation: g.observe(s), rewardVisibility: "hidden" });

  it("the experience carries no score, and every shown tactic reads as a tie at 0", () => {
    expect(experience).not.toContain("Self-score");
    const stats = readExperience(experience, TACTIC_SETS.tetris.learn).stats;
    expect([...stats].sort()).toEqual([
      ["careless", { n: 1, sum: 0 }],
      ["flat", { n: 6, sum: 0 }],
      ["tall-stack", { n: 1, sum: 0 }],
    ]);
  });

  it("evaluation draws among the tactics it has seen played, alike, each episode on its own", () => {
    const counts: Record<string, number> = {};
    for (let seed = 0; seed < 60; seed++) {
      const t = learnerStep(messages, { judge: 1, checkpoint: null }, seed, "eval")!.tactic;
      counts[t] = (counts[t] ?? 0) + 1;
    }
    expect(Object.keys(counts).sort()).toEqual(["careless", "flat", "tall-stack"]);
    for (const t of ["careless", "flat", "tall-stack"]) {
      expect(counts[t]).toBeGreaterThanOrEqual(10);
      expect(counts[t]).toBeLessThanOrEqual(30);
    }
  });
});

describe("the episode's role, not the config's name, decides whether it explores", () => {
  // A first-step prompt of the EXPLORE config (what the id and replay views play) whose History shows
  // only `careless`, with a positive self-judged return: an exploring episode tries an untried tactic,
  // an evaluation-role episode plays the best mean, `careless`.
  const g = getGame("tetris");
  const s = g.reset(11, "explore");
  const messages = buildStepMessages({ rules: g.rules("explore"), experience: renderTrajectory(traj(1, "careless", [2, 2])), turns: [], observation: g.observe(s), rewardVisibility: "hidden" });
  const tacticOf = async (phase: "explore" | "eval" | null, seed: number): Promise<string> => {
    const model = new LearnerModel({ judge: 1, checkpoint: null });
    const r = await model.complete({ messages, sampling: { seed }, identity: { ...identity, phase } });
    return r.text.split("\n")[0]!.replace("Tactic: ", "");
  };
  it("an evaluation-role episode of the explore config is greedy (every seed)", async () => {
    for (let seed = 0; seed < 12; seed++) expect(await tacticOf("eval", seed)).toBe("careless");
  });
  it("an exploration-role episode explores (untried tactics first)", async () => {
    for (let seed = 0; seed < 12; seed++) expect(await tacticOf("explore", seed)).not.toBe("careless");
  });
  it("with no role (a bare HTTP request) the config's name stands in: explore config, so it explores", async () => {
    expect(await tacticOf(null, 3)).not.toBe("careless");
    expect(answerLearner(messages, { judge: 1, checkpoint: null }, 3, "eval")).toMatch(/^Tactic: careless\n/);
  });
});
