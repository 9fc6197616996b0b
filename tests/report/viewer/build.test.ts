import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../../src/analysis/load/dataset.js";
import { buildReport } from "../../../src/report/buildReport.js";
import { fmt3, fmtEstimate } from "../../../src/report/tables.js";
import { buildViewer, chunkScript, isOverConfident } from "../../../src/report/viewer/build.js";
import { HAND_STEPS, makeViewerFixture, readChunk, readEpisode, type ViewerFixture } from "./fixture.js";

const B = 200;
let fx: ViewerFixture;
let site: string;
let built: Awaited<ReturnType<typeof buildViewer>>;

beforeAll(async () => {
  fx = await makeViewerFixture();
  site = mkdtempSync(join(tmpdir(), "s3view-site-"));
  built = await buildViewer({ dataDirs: [fx.main, fx.shard], outDir: site, B, seed: 0 });
}, 120_000);

describe("isOverConfident", () => {
  it("is s > 0 with r <= 0 (hand cases)", () => {
    for (const h of HAND_STEPS) expect(isOverConfident({ self_score: h.s, reward: h.r })).toBe(h.over);
  });
});

describe("buildViewer", () => {
  it("writes three files per run whatever its episodes (run page, episodes, prompts), plus the overview", () => {
    const names = readdirSync(join(site, "chunks"))
      .filter((n) => n.endsWith(".js"))
      .sort();
    const runs = fx.runIds.length;
    expect(built.episodes).toBeGreaterThan(3 * runs); // more episodes than files: a file per episode would fail below
    expect(names).toHaveLength(3 * runs + 1);
    expect(built.chunks).toBe(3 * runs + 1);
    const expected = ["index.js", ...Array.from({ length: runs }, (_, i) => [`r${i}.js`, `r${i}d.js`, `r${i}p.js`]).flat()].sort();
    expect(names).toEqual(expected);
  });

  it("lists every run of every shard once, with the manifest's status", () => {
    const index = readChunk(site, "index");
    expect(index.runs.map((r: { run_id: string }) => r.run_id).sort()).toEqual([...fx.runIds].sort());
    const hand = index.runs.find((r: { run_id: string }) => r.run_id === fx.handRunId);
    expect(hand.status).toBe("degenerate");
    expect(index.runs.filter((r: { status: string }) => r.status === "complete").length).toBe(fx.runIds.length - 1);
    expect(index.facets.views).toEqual(["eval"]);
  });

  it("shows the report's numbers: Avg/NABA cells and the curve with its intervals", async () => {
    const report = buildReport(await loadDataset([fx.main, fx.shard]), { B, seed: 0 });
    const index = readChunk(site, "index");
    for (const row of report.tables.main_results.rows) {
      const entry = index.runs.find((r: { run_id: string }) => r.run_id === row.runs[0]);
      expect(entry.avg).toBe(fmtEstimate(row.avg));
      expect(entry.naba).toBe(fmtEstimate(row.naba));
      const run = readChunk(site, `r${entry.i}`);
      expect(run.metrics.map((m: { text: string }) => m.text)).toEqual([row.avg, row.max, row.auc_plus, row.naba].map(fmtEstimate));
      const series = report.curves.find((c) => c.model === row.model && c.game === row.game && c.pathway === row.pathway)!;
      expect(run.curve.map((p: { x: number; yText: string; loText: string; hiText: string }) => [p.x, p.yText, p.loText, p.hiText])).toEqual(
        series.points.map((p) => [p.x, fmt3(p.y), fmt3(p.lo), fmt3(p.hi)]),
      );
    }
    // The hand run's curve by hand: y(0) = (1 + 2) / 2 = 1.5, y(1) = (3 + 4) / 2 = 3.5; Avg 2.5.
    const hand = index.runs.find((r: { run_id: string }) => r.run_id === fx.handRunId);
    expect(hand.avg.startsWith("2.500")).toBe(true);
    expect(hand.spark).toEqual([
      { x: 0, y: 1.5 },
      { x: 1, y: 3.5 },
    ]);
  });

  it("writes each episode's steps with self-score, reward and the over-confident flag", () => {
    const hand = readChunk(site, "index").runs.find((r: { run_id: string }) => r.run_id === fx.handRunId);
    const run = readChunk(site, `r${hand.i}`);
    const explore = run.episodes.find((e: { phase: string }) => e.phase === "explore");
    expect(explore.over).toBe(2);
    expect(explore.parseErrors).toBe(1);
    const { ep, prompts } = readEpisode(site, hand.i, explore.j);
    expect(ep.steps.map((s: { self_score: number | null; reward: number; over: boolean }) => [s.self_score, s.reward, s.over])).toEqual(HAND_STEPS.map((h) => [h.s, h.r, h.over]));
    // The think block is the collapsed reasoning; the answer is what follows it.
    expect(ep.steps[1].reasoning).toMatch(/^<think>I should trust them\./);
    expect(ep.steps[1].answer.startsWith("<script>")).toBe(true);
    expect(ep.steps[1].answer).toMatch(/Answer: cooperate\nScore: 1$/);
    expect(ep.prompt).toBe(true);
    expect(prompts.steps).toHaveLength(ep.steps.length);
    // Episodes are ordered: exploration first, then checkpoints in order.
    expect(run.episodes.map((e: { label: string }) => e.label)).toEqual(["explore 1", "x=0 eval 0", "x=0 eval 1", "x=1 eval 0", "x=1 eval 1"]);
  });

  it("says why a run's prompts cannot be rebuilt, and keeps the memory diffs", () => {
    const index = readChunk(site, "index");
    const syn = index.runs.find((r: { model: string }) => r.model === "synth-1");
    const { ep, prompts } = readEpisode(site, syn.i, 0);
    expect(ep.prompt).toMatch(/no config\.protocol/);
    expect(prompts).toBeNull();
    const mem = index.runs.find((r: { pathway: string; model: string }) => r.pathway === "memory" && r.model === "builtin:heuristic");
    const run = readChunk(site, `r${mem.i}`);
    expect(run.memory.map((m: { after_episode: number }) => m.after_episode)).toEqual([0, 1, 2, 3]);
    expect(run.memory[0].diff).toEqual([]); // version 0 is empty
    expect(run.memory[1].diff.every((d: { op: string }) => d.op === "+")).toBe(true);
    expect(run.usage.calls).toBeGreaterThan(0);
  });

  it("merges a copy of a run in another directory: every episode once", async () => {
    const copy = mkdtempSync(join(tmpdir(), "s3view-copy-"));
    const index = readChunk(site, "index");
    const hand = index.runs.find((r: { run_id: string }) => r.run_id === fx.handRunId);
    const src = join(fx.main, "runs", fx.handRunId);
    mkdirSync(join(copy, "runs", fx.handRunId), { recursive: true });
    for (const f of ["manifest.json", "steps.jsonl", "episodes.jsonl", "checkpoints.jsonl"]) writeFileSync(join(copy, "runs", fx.handRunId, f), readFileSync(join(src, f)));
    const out = mkdtempSync(join(tmpdir(), "s3view-site2-"));
    const summary = await buildViewer({ dataDirs: [fx.main, copy], outDir: out, B: 10 });
    const again = readChunk(out, "index").runs.find((r: { run_id: string }) => r.run_id === fx.handRunId);
    expect(again.episodes).toBe(hand.episodes);
    expect(summary.runs).toBe(fx.runIds.length - 1);
  });

  // Worker threads load the built module (dist/): vitest runs the TypeScript source, which a worker
  // cannot load, so this compares the built build's worker output with this thread's site.
  const built_ = join(import.meta.dirname, "..", "..", "..", "dist", "report", "viewer", "build.js");
  it.skipIf(!existsSync(built_))(
    `writes the same files with two worker threads as in one thread${existsSync(built_) ? "" : " (skipped: run npm run build first)"}`,
    async () => {
      const { buildViewer: builtViewer } = (await import(pathToFileURL(built_).href)) as { buildViewer: typeof buildViewer };
      const out = mkdtempSync(join(tmpdir(), "s3view-workers-"));
      const summary = await builtViewer({ dataDirs: [fx.main, fx.shard], outDir: out, B, seed: 0, workers: 2, heapMb: 64 });
      expect(summary.chunks).toBe(built.chunks);
      const names = readdirSync(join(site, "chunks")).sort();
      expect(readdirSync(join(out, "chunks")).sort()).toEqual(names);
      for (const n of names) expect(readFileSync(join(out, "chunks", n), "utf8"), n).toBe(readFileSync(join(site, "chunks", n), "utf8"));
      // A run that needs more than a worker's heap is named, with the fix, instead of crashing the build.
      const tiny = mkdtempSync(join(tmpdir(), "s3view-tiny-"));
      await expect(builtViewer({ dataDirs: [fx.main, fx.shard], outDir: tiny, B: 10, workers: 2, heapMb: 1 })).rejects.toThrow(/heap of a viewer worker: rerun with a larger --heap-mb/);
    },
    120_000,
  );

  it("refuses to clear a chunks/ folder it did not write", async () => {
    const out = mkdtempSync(join(tmpdir(), "s3view-foreign-"));
    mkdirSync(join(out, "chunks"));
    writeFileSync(join(out, "chunks", "precious.txt"), "keep me");
    await expect(buildViewer({ dataDirs: [fx.shard], outDir: out, B: 10 })).rejects.toThrow(/not written by s3gym view/);
    expect(readFileSync(join(out, "chunks", "precious.txt"), "utf8")).toBe("keep me");
  });

  it("a chunk is a loader call whose JSON cannot break out of its string", () => {
    const text = chunkScript("r0e0", { s: `"); window.__pwned = 1; ("` + "\u2028</script>" });
    // Evaluated as a script, it only calls the loader with the same data back.
    const got: unknown[] = [];
    new Function("S3V_CHUNK", text)((k: string, d: unknown) => got.push(k, d));
    expect(got).toEqual(["r0e0", { s: `"); window.__pwned = 1; ("` + "\u2028</script>" }]);
  });
});
