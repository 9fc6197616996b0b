/**
 * The data set snapshot of a notebook run (src/report/notebooks/datasetSnapshot.ts): it round-trips
 * the loader's Dataset exactly (warnings included), is refused for other data directories, changed
 * files or a damaged file, holds the runs the loader leaves out as it leaves them out (named in its
 * warnings), and is never written for data the loader rejects outright.
 */
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../../src/analysis/load/dataset.js";
import { writeSyntheticData } from "../../../src/logs/synthetic.js";
import { DATASET_SNAPSHOT_VAR, notebookDataset, readDatasetSnapshot, writeDatasetSnapshot } from "../../../src/report/notebooks/datasetSnapshot.js";
import { tempDir } from "../../analysis/helpers.js";

async function data(): Promise<{ dir: string; runIds: string[] }> {
  const dir = tempDir();
  const s = await writeSyntheticData(dir, {
    seed: 2,
    models: ["a"],
    games: ["snake", "trust"],
    pathways: ["history", "memory"],
    exploreEpisodes: 4,
    checkpointEvery: 2,
    evalEpisodes: 2,
    stepsPerEpisode: [2, 4],
    tornLastLine: true,
    training: { models: ["t"], epochs: 2 },
  });
  return { dir, runIds: s.runIds };
}

describe("the notebook run's data set snapshot", () => {
  it("gives back exactly what loadDataset gives, warnings and typed arrays included", async () => {
    const { dir } = await data();
    const file = join(tempDir(), "ds.v8");
    expect(await writeDatasetSnapshot([dir], file)).toBe(true);
    const direct = await loadDataset([dir]);
    expect(direct.warnings.length).toBeGreaterThan(0); // the torn last lines
    expect(readDatasetSnapshot(file, [dir])).toStrictEqual(direct);
    expect(await notebookDataset({ data: [dir] }, { [DATASET_SNAPSHOT_VAR]: file })).toStrictEqual(direct);
  });

  it("is refused for other data directories, after a file changed, or when damaged; the notebook then loads the logs", async () => {
    const { dir, runIds } = await data();
    const other = (await data()).dir;
    const file = join(tempDir(), "ds.v8");
    await writeDatasetSnapshot([dir], file);
    expect(readDatasetSnapshot(file, [other])).toBeNull();
    expect(readDatasetSnapshot(file, [dir, other])).toBeNull();
    // A checkpoint record appended: the snapshot no longer stands for the data.
    const cps = join(dir, "runs", runIds[0]!, "checkpoints.jsonl");
    appendFileSync(cps, "\n");
    expect(readDatasetSnapshot(file, [dir])).toBeNull();
    const fresh = await loadDataset([dir]);
    expect(await notebookDataset({ data: [dir] }, { [DATASET_SNAPSHOT_VAR]: file })).toStrictEqual(fresh);
    writeFileSync(file, "not a snapshot");
    expect(readDatasetSnapshot(file, [dir])).toBeNull();
    expect(readDatasetSnapshot(join(tempDir(), "missing.v8"), [dir])).toBeNull();
    expect(await notebookDataset({ data: [dir] }, {})).toStrictEqual(fresh);
  });

  it("holds the loader's left-out run and its warning for a line that breaks the schema; is not written for data the loader still rejects (no runs/ folder), so each notebook shows the loader's error", async () => {
    const { dir, runIds } = await data();
    const bad = runIds[0]!;
    const steps = join(dir, "runs", bad, "steps.jsonl");
    // The torn last line becomes a damaged line mid-file; the next line parses but is not a step.
    appendFileSync(steps, '{"not":"a step"}\n{"also":"not"}\n');
    const file = join(tempDir(), "ds.v8");
    expect(await writeDatasetSnapshot([dir], file)).toBe(true);
    const direct = await loadDataset([dir]);
    expect(direct.runs.map((r) => r.run_id)).toEqual(runIds.filter((id) => id !== bad).sort());
    expect(direct.warnings.filter((w) => w.startsWith(`left out run ${bad}: ${steps}:`) && w.includes(": field '"))).toHaveLength(1);
    expect(direct.warnings.filter((w) => w.startsWith(`${steps}:`) && w.includes(": damaged line left out (invalid JSON ("))).toHaveLength(1);
    expect(readDatasetSnapshot(file, [dir])).toStrictEqual(direct);
    expect(await notebookDataset({ data: [dir] }, { [DATASET_SNAPSHOT_VAR]: file })).toStrictEqual(direct);
    // A data directory without runs/ is still refused outright by the loader.
    const empty = tempDir();
    const file2 = join(tempDir(), "ds.v8");
    const refusal = "no runs/ folder (expected <data>/runs/<run_id>/steps.jsonl)";
    await expect(loadDataset([empty])).rejects.toThrow(`${empty}: ${refusal}`);
    expect(await writeDatasetSnapshot([empty], file2)).toBe(false);
    expect(existsSync(file2)).toBe(false);
    await expect(notebookDataset({ data: [empty] }, { [DATASET_SNAPSHOT_VAR]: file2 })).rejects.toThrow(`${empty}: ${refusal}`);
  });
});
