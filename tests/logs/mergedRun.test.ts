/** readDeduped: the ad hoc reader's one call for records with duplicates resolved (docs/analysis.md). */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDeduped, type DedupedRun } from "../../src/logs/mergedRun.js";
import { writeHandRun, type HandStep } from "../helpers/handLogs.js";

const step = (k: number): HandStep => ({ observation: `obs ${k}`, response: `Answer: collaborate\nScore: ${k}`, action: "collaborate", self_score: k, reward: 1 });

async function all(dirs: string[]): Promise<DedupedRun[]> {
  const out: DedupedRun[] = [];
  for await (const r of readDeduped(dirs)) out.push(r);
  return out;
}

describe("readDeduped", () => {
  it("keeps the last line of a step a resumed run wrote twice, and each episode once", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3-dedup-"));
    const dir = writeHandRun(data, {
      game: "trust",
      pathway: "none",
      model: "m",
      episodes: [
        { phase: "explore", checkpoint: null, episode: 0, seed: 1, steps: [step(0), step(1), step(2)] },
        { phase: "explore", checkpoint: null, episode: 1, seed: 2, steps: [step(0), step(1)] },
      ],
    });
    writeFileSync(join(dir, "checkpoints.jsonl"), "");
    // A resume replays episode 1 from its step 0: both of its step lines appear again, the second with another reply.
    const lines = readFileSync(join(dir, "steps.jsonl"), "utf8").trim().split("\n");
    const again = lines.slice(3).map((l) => JSON.parse(l));
    again[1].response = "Answer: cheat\nScore: 9";
    again[1].action = "cheat";
    appendFileSync(join(dir, "steps.jsonl"), again.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const episodeLine = readFileSync(join(dir, "episodes.jsonl"), "utf8").trim().split("\n")[1]!;
    appendFileSync(join(dir, "episodes.jsonl"), `${episodeLine}\n`);
    expect(readFileSync(join(dir, "steps.jsonl"), "utf8").trim().split("\n")).toHaveLength(7); // 5 steps + 2 repeated

    const runs = await all([data]);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run!.sources).toEqual([dir]);
    expect(run!.episodes.map((e) => [e.record?.episode, e.steps.length])).toEqual([
      [0, 3],
      [1, 2],
    ]);
    expect(run!.episodes[1]!.steps.map((s) => s.action)).toEqual(["collaborate", "cheat"]);
  });

  it("merges a copy of a run in a second directory into one run with both sources", async () => {
    const a = mkdtempSync(join(tmpdir(), "s3-dedup-a-"));
    const b = mkdtempSync(join(tmpdir(), "s3-dedup-b-"));
    const spec = { game: "trust" as const, pathway: "none", model: "m", episodes: [{ phase: "explore" as const, checkpoint: null, episode: 0, seed: 1, steps: [step(0)] }] };
    const da = writeHandRun(a, spec);
    const db = writeHandRun(b, spec);
    for (const d of [da, db]) writeFileSync(join(d, "checkpoints.jsonl"), "");
    const runs = await all([a, b]);
    expect(runs.map((r) => [r.sources.length, r.episodes.length])).toEqual([[2, 1]]);
  });
});
