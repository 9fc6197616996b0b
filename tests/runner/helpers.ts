/** Shared test doubles for the runner tests: built-in models behind the real call log, recorders, faults. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeBuiltinModel } from "../../src/builtin/builtinModel.js";
import { ObservedModel, type OnCall } from "../../src/models/callLog.js";
import { parseModelSpec } from "../../src/models/modelSpec.js";
import { ModelCallError, type CompletionRequest, type CompletionResult, type Model } from "../../src/models/types.js";
import { GAMES } from "../../src/games/registry.js";
import { GAME_NAMES, type GameName } from "../../src/games/types.js";
import { DEFAULT_SETTINGS, type ProtocolSettings } from "../../src/runner/loop/context.js";
import { expect } from "vitest";
import { readRunRecords, type RunRecords } from "../../src/logs/reader.js";
import { checkpointList } from "../../src/runner/loop/schedule.js";

/** Games whose module is implemented (placeholders throw on any use). */
export function implementedGames(): GameName[] {
  return GAME_NAMES.filter((g) => {
    try {
      GAMES[g].reset(0, "explore");
      return true;
    } catch {
      return false;
    }
  });
}

export function builtin(name: string): Model {
  const spec = parseModelSpec(name);
  if (spec.scheme !== "builtin") throw new Error(`not builtin: ${name}`);
  return makeBuiltinModel(spec);
}

/** A model factory for runMatrix: built-in policy, optionally wrapped, behind the real call log. */
export function factory(wrap: (name: string, m: Model) => Model = (_n, m) => m) {
  return (name: string, onCall: OnCall): Model => new ObservedModel(wrap(name, builtin(name)), onCall, null);
}

/** Records every request (messages, identity) a model received. */
export class RecordingModel implements Model {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly inner: Model) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  complete(r: CompletionRequest): Promise<CompletionResult> {
    this.requests.push({ ...r, messages: r.messages.map((m) => ({ ...m })) });
    return this.inner.complete(r);
  }
}

/** A runMatrix model factory whose models record every request: `requests()` gives them all, in model order. */
export function recordingFactory(): { createModel: ReturnType<typeof factory>; requests: () => CompletionRequest[] } {
  const recorders: RecordingModel[] = [];
  const createModel = factory((_n, m) => {
    const r = new RecordingModel(m);
    recorders.push(r);
    return r;
  });
  return { createModel, requests: () => recorders.flatMap((r) => r.requests) };
}

/** Rewrites every reply text of the inner model (a model's answer shape, not a fault). */
export class RewritingModel implements Model {
  constructor(
    private readonly inner: Model,
    private readonly rewrite: (text: string, r: CompletionRequest) => string,
  ) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  async complete(r: CompletionRequest): Promise<CompletionResult> {
    const res = await this.inner.complete(r);
    return { ...res, text: this.rewrite(res.text, r) };
  }
}

/** Throws ModelCallError (infrastructure) for the calls `fails` selects. */
export class FaultyModel implements Model {
  constructor(
    private readonly inner: Model,
    private readonly fails: (r: CompletionRequest) => boolean,
  ) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  async complete(r: CompletionRequest): Promise<CompletionResult> {
    if (this.fails(r)) throw new ModelCallError("HTTP 503: upstream unavailable (retries exhausted after 2 retries)", "http_5xx", 2);
    return this.inner.complete(r);
  }
}

export function small(over: Partial<ProtocolSettings> = {}): ProtocolSettings {
  return { ...DEFAULT_SETTINGS, exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, maxSteps: 8, ...over };
}

/** Parses a JSONL file of a run (every line must be complete). */
export function lines<T = Record<string, unknown>>(dir: string, file: string): T[] {
  const p = join(dir, file);
  if (!existsSync(p)) return [];
  const text = readFileSync(p, "utf8");
  if (text.length > 0 && !text.endsWith("\n")) throw new Error(`${file}: torn last line`);
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as T);
}

/**
 * Reads a finished run through the shared reader (schema-validates every line) and checks that it is
 * complete: every episode once, steps 0..n-1 once each, every checkpoint once, versions of memory.
 */
export async function readCompleteRun(dir: string, s: ProtocolSettings, opts: { resumed?: boolean } = {}): Promise<RunRecords> {
  const warnings: string[] = [];
  const r = await readRunRecords(dir, { onWarning: (w) => warnings.push(w.message) });
  expect(warnings).toEqual([]);
  expect(r.manifest?.status).toBe("complete");
  const cps = checkpointList(s.exploreEpisodes, s.checkpointEvery);
  const want = [...Array.from({ length: s.exploreEpisodes }, (_, i) => `explore|-|${i + 1}`), ...cps.flatMap((c) => Array.from({ length: s.evalEpisodes }, (_, i) => `eval|${c}|${i}`))].sort();
  const key = (e: { phase: string; checkpoint: number | null; episode: number }) => `${e.phase}|${e.checkpoint ?? "-"}|${e.episode}`;
  expect(r.episodes.map(key).sort()).toEqual(want);
  expect(r.episodes.every((e) => e.status === "ok" && e.error === null)).toBe(true);
  for (const e of r.episodes) {
    const steps = r.steps.filter((x) => key(x) === key(e)).map((x) => x.step);
    expect(steps.sort((a, b) => a - b)).toEqual(Array.from({ length: e.steps }, (_, i) => i));
    expect(e.steps).toBeGreaterThan(0);
    expect(e.steps).toBeLessThanOrEqual(s.maxSteps);
  }
  expect(r.steps).toHaveLength(r.episodes.reduce((n, e) => n + e.steps, 0));
  expect(r.checkpoints.map((c) => c.checkpoint)).toEqual(expect.arrayContaining(cps));
  expect(r.checkpoints).toHaveLength(cps.length);
  for (const c of r.checkpoints) {
    expect(c.status).toBe("ok");
    const scores = r.episodes
      .filter((e) => e.phase === "eval" && e.checkpoint === c.checkpoint)
      .sort((a, b) => a.episode - b.episode)
      .map((e) => e.score);
    expect(c.scores).toEqual(scores);
    expect(c.mean).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / scores.length, 10);
  }
  if (r.manifest?.pathway === "memory") expect(r.memory.map((m) => m.after_episode)).toEqual(Array.from({ length: s.exploreEpisodes + 1 }, (_, i) => i));
  // The pathway's own calls: a summary per exploration episode (memory); a verdict per episode and a curriculum per batch (verified).
  const summaries = r.manifest?.pathway === "memory" ? s.exploreEpisodes : r.manifest?.pathway === "verified" ? s.exploreEpisodes + lines(dir, "curriculum.jsonl").length : 0;
  // calls.jsonl audits every call made: after a resume it also holds the calls of discarded attempts.
  const okCalls = r.calls.filter((c) => c.error === null).length;
  if (opts.resumed) expect(okCalls).toBeGreaterThanOrEqual(r.steps.length + summaries);
  else expect(okCalls).toBe(r.steps.length + summaries);
  return r;
}

/** The episode blocks a step prompt's experience holds: [episode, complete?] in order. */
export function historyBlocksOf(messages: { role: string; content: string }[]): Array<[number, boolean]> {
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  const m = /<experience>\n([\s\S]*)\n<\/experience>/.exec(user);
  if (!m) return [];
  const out: Array<[number, boolean]> = [];
  for (const block of m[1]!.split(/\n\n(?==== Exploration episode)/)) {
    const h = /^=== Exploration episode (\d+) /.exec(block);
    if (h) out.push([Number(h[1]), block.includes("\nEnd state:\n")]);
  }
  return out;
}

/** The JSONL files of a run that hold records (the writer's; calls.jsonl is timing and usage). */
const RECORD_FILES = ["steps.jsonl", "episodes.jsonl", "checkpoints.jsonl", "memory.jsonl", "curriculum.jsonl", "verdicts.jsonl"];
/** Fields that measure the clock, not the run: left out when two runs' records are compared. */
const VOLATILE = ["latency_ms", "cached", "started_at", "ended_at"];

/** Every record of every run under `data`, timing aside, sorted: what a resumed or killed run must end with. */
export function runRecords(data: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const run of readdirSync(join(data, "runs")).sort())
    for (const f of RECORD_FILES) {
      const p = join(data, "runs", run, f);
      if (!existsSync(p)) continue;
      out[`${run}/${f}`] = readFileSync(p, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const o = JSON.parse(l) as Record<string, unknown>;
          for (const k of VOLATILE) delete o[k];
          return JSON.stringify(o);
        })
        .sort();
    }
  return out;
}
