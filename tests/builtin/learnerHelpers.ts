/** Shared by the learner tests: small protocol runs in-process and the paired bootstrap of metrics.md. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapRng, percentileInterval, resampleIndices } from "../../src/analysis/stats/bootstrap.js";
import { getGame } from "../../src/games/registry.js";
import { readRunRecords } from "../../src/logs/reader.js";
import { runDir } from "../../src/logs/runDir.js";
import { DEFAULT_SETTINGS, type ProtocolSettings } from "../../src/runner/loop/context.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory } from "../runner/helpers.js";

/** Eval scores per checkpoint, in episode (= eval seed) order. */
export type Curve = Map<number, number[]>;

export function learnerSettings(o: Partial<ProtocolSettings> = {}): ProtocolSettings {
  return { ...DEFAULT_SETTINGS, exploreEpisodes: 6, checkpointEvery: 6, evalEpisodes: 10, maxSteps: 16, ...o };
}

/** Runs models x games x pathways and returns each run's eval curve, keyed `model|game|pathway`. */
export async function runCurves(models: string[], games: string[], pathways: string[], settings: ProtocolSettings, dataDir?: string): Promise<Map<string, Curve>> {
  const data = dataDir ?? mkdtempSync(join(tmpdir(), "s3learner-"));
  const entries = buildMatrix(models, games, pathways, 0);
  const outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
  for (const o of outcomes) if (o.status !== "complete") throw new Error(`${o.runId}: ${o.status} ${o.error}`);
  const out = new Map<string, Curve>();
  for (const e of entries) {
    const recs = await readRunRecords(runDir(data, e.runId));
    const curve: Curve = new Map();
    for (const ep of [...recs.episodes].filter((x) => x.phase === "eval").sort((a, b) => a.episode - b.episode)) {
      const list = curve.get(ep.checkpoint!) ?? [];
      list.push(ep.score);
      curve.set(ep.checkpoint!, list);
    }
    out.set(`${e.model}|${e.game}|${e.pathway}`, curve);
  }
  return out;
}

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The paired percentile bootstrap of mean(b - a) over the same evaluation seeds (metrics.md: paired
 * comparisons resample seeds, keeping each seed's pair together), B = 2000, 95%.
 */
export function pairedInterval(a: readonly number[], b: readonly number[], key: string): { point: number; lo: number; hi: number } {
  if (a.length !== b.length || a.length === 0) throw new Error(`paired lists differ in length: ${a.length} vs ${b.length}`);
  const d = a.map((x, i) => b[i]! - x);
  const rng = bootstrapRng(0, "learner-test", key);
  const reps = new Float64Array(2000);
  const idx = new Int32Array(d.length);
  for (let r = 0; r < reps.length; r++) {
    resampleIndices(rng, d.length, idx);
    let s = 0;
    for (const i of idx) s += d[i]!;
    reps[r] = s / d.length;
  }
  const ci = percentileInterval(reps);
  return { point: mean(d), lo: ci.lo!, hi: ci.hi! };
}

/** First and last checkpoint's scores of a curve. */
export function ends(c: Curve): { first: number[]; last: number[] } {
  const ks = [...c.keys()].sort((x, y) => x - y);
  return { first: c.get(ks[0]!)!, last: c.get(ks.at(-1)!)! };
}
