/**
 * A small data set for the viewer tests, in two data directories (as shards):
 * - `main`: real runs of builtin:heuristic (minesweeper and trust x history and memory, the runner's
 *   own logs), and one hand-written History run on trust whose model text is hostile (an injected
 *   `<script>`, `<img onerror>`, `javascript:` links) and whose self-scores are chosen by hand so the
 *   over-confident steps are known; its manifest says `degenerate`.
 * - `shard`: one synthetic run (no config.protocol in its manifest: its prompts cannot be rebuilt).
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeSyntheticData } from "../../../src/logs/synthetic.js";
import { getGame } from "../../../src/games/registry.js";
import { runMatrix } from "../../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../../src/runner/loop/schedule.js";
import { writeHandRun, type HandStep } from "../../helpers/handLogs.js";
import { factory, small } from "../../runner/helpers.js";

/** Sets window.__pwned if any of it ever runs. */
export const INJECTED = [
  `<script>window.__pwned = "script"</script>`,
  `<img src=x onerror="window.__pwned='img'">`,
  `[click me](javascript:window.__pwned='md') <a href="javascript:window.__pwned='a'" id="evil">link</a>`,
].join("\n");

export const HOSTILE_MODEL = `hand<img src=x onerror="window.__pwned='model'">`;

/** (self-score, reward) of the hand run's exploration steps; over-confident = s > 0 and r <= 0. */
export const HAND_STEPS: { s: number | null; r: number; over: boolean }[] = [
  { s: 0, r: 0, over: false },
  { s: 1, r: 0, over: true },
  { s: 2, r: 1, over: false },
  { s: null, r: 0, over: false },
  { s: 0.5, r: -1, over: true },
  { s: -1, r: -1, over: false },
];

export interface ViewerFixture {
  main: string;
  shard: string;
  handRunId: string;
  runIds: string[];
}

function handSteps(): HandStep[] {
  return HAND_STEPS.map((h, i) => ({
    observation: i === 0 ? `Round 1\n</pre><script>window.__pwned = "obs"</script>` : `Round ${i + 1}`,
    response: i === 1 ? `<think>I should trust them. ${INJECTED}</think>\n${INJECTED}\nAnswer: cooperate\nScore: 1` : `Answer: cooperate\nScore: ${h.s ?? "?"}`,
    action: h.s === null ? null : "cooperate",
    self_score: h.s,
    reward: h.r,
    feedback: i === 2 ? `<img src=x onerror="window.__pwned='feedback'">` : `round ${i + 1} done`,
  }));
}

export async function makeViewerFixture(): Promise<ViewerFixture> {
  const root = mkdtempSync(join(tmpdir(), "s3view-"));
  const main = join(root, "main");
  const shard = join(root, "shard");
  const entries = buildMatrix(["builtin:heuristic"], ["minesweeper", "trust"], ["history", "memory"], 0);
  await runMatrix({ dataDir: main, entries, settings: small({ exploreEpisodes: 3, checkpointEvery: 3 }), game: getGame, createModel: factory() });

  const evalSteps = (k: number): HandStep[] =>
    Array.from({ length: 2 }, (_, i) => ({ observation: `eval round ${i + 1}`, response: `Answer: cheat\nScore: ${k}`, action: "cheat", self_score: k, reward: i === 0 ? k : 0, feedback: "ok" }));
  const dir = writeHandRun(main, {
    game: "trust",
    pathway: "history",
    model: HOSTILE_MODEL,
    episodes: [
      { phase: "eval", checkpoint: 0, episode: 0, seed: 5, steps: evalSteps(1) },
      { phase: "eval", checkpoint: 0, episode: 1, seed: 6, steps: evalSteps(2) },
      { phase: "explore", checkpoint: null, episode: 1, seed: 9, steps: handSteps(), end_observation: "Game over" },
      { phase: "eval", checkpoint: 1, episode: 0, seed: 5, steps: evalSteps(3) },
      { phase: "eval", checkpoint: 1, episode: 1, seed: 6, steps: evalSteps(4) },
    ],
  });
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ ...manifest, status: "degenerate" }, null, 2));
  const handRunId = String(manifest.run_id);
  const id = { run_id: handRunId, model: HOSTILE_MODEL, game: "trust", pathway: "history" };
  // Scores: the sum of each hand eval episode's rewards (first step's k, second 0).
  appendFileSync(
    join(dir, "checkpoints.jsonl"),
    [
      JSON.stringify({ ...id, checkpoint: 0, scores: [1, 2], mean: 1.5, status: "ok", reason: null }),
      JSON.stringify({ ...id, checkpoint: 1, scores: [3, 4], mean: 3.5, status: "ok", reason: null }),
    ].join("\n") + "\n",
  );

  const syn = await writeSyntheticData(shard, { models: ["synth-1"], games: ["snake"], pathways: ["memory"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, failRate: 0 });
  return { main, shard, handRunId, runIds: [...entries.map((e) => e.runId), handRunId, ...syn.runIds] };
}

/** The data of a chunk file (`S3V_CHUNK("key", {...});`). */
export function readChunk(site: string, key: string): any {
  const text = readFileSync(join(site, "chunks", `${key}.js`), "utf8");
  const prefix = `S3V_CHUNK(${JSON.stringify(key)}, `;
  if (!text.startsWith(prefix) || !text.endsWith(");\n")) throw new Error(`chunk ${key} is not a loader call`);
  return JSON.parse(text.slice(prefix.length, -3));
}

/** Episode j of run i, and its packed prompts (null when not rebuildable), from the run's episode and prompt files. */
export function readEpisode(site: string, i: number, j: number): { ep: any; prompts: any } {
  const ep = readChunk(site, `r${i}d`).eps[j];
  if (!ep) throw new Error(`run ${i} has no episode ${j}`);
  return { ep, prompts: readChunk(site, `r${i}p`).eps[j] };
}
