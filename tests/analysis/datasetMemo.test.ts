import { appendFileSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { forgetDataset, recallDataset } from "../../src/analysis/load/datasetMemo.js";
import { loadColumns } from "../../src/analysis/load/frames.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { writeSyntheticData } from "../../src/index.js";
import { notebookDataset } from "../../src/report/notebooks/datasetSnapshot.js";

async function smallData(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "s3gym-memo-"));
  await writeSyntheticData(dir, { models: ["m1", "m2"], games: ["chess", "trust"], pathways: ["history"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, stepsPerEpisode: [2, 4] });
  return dir;
}

describe("the frames' data set is reused by notebookDataset (notebook 00 loads once)", () => {
  afterEach(() => forgetDataset());

  it("hands back the very Dataset loadColumns built, equal to a fresh load", async () => {
    const dir = await smallData();
    await loadColumns([dir]);
    const again = recallDataset([dir]);
    expect(again).not.toBeNull();
    expect(await notebookDataset({ data: [dir] }, {})).toBe(again);
    expect(again).toEqual(await loadDataset([dir]));
  });

  it("answers only for the same directories, and not once a file changed", async () => {
    const a = await smallData();
    const b = await smallData();
    await loadColumns([a]);
    expect(recallDataset([b])).toBeNull();
    expect(recallDataset([a, b])).toBeNull();
    const run = readdirSync(join(a, "runs"))[0]!;
    appendFileSync(join(a, "runs", run, "steps.jsonl"), "");
    expect(recallDataset([a])).not.toBeNull(); // an empty append changes nothing
    appendFileSync(join(a, "runs", run, "steps.jsonl"), "\n");
    expect(recallDataset([a])).toBeNull();
    // notebookDataset then loads afresh: a different object.
    const fresh = await notebookDataset({ data: [a] }, {});
    expect(fresh).not.toBeNull();
  });
});
