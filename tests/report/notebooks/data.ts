import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSyntheticData } from "../../../src/logs/synthetic.js";

/** The small synthetic data set the notebook tests read: two models, two games, a 3-epoch training run. */
export async function writeNotebookTestData(dir: string, seed: number): Promise<void> {
  await writeSyntheticData(dir, {
    seed,
    models: ["alpha-7b", "bravo-8b"],
    games: ["snake", "trust"],
    exploreEpisodes: 6,
    evalEpisodes: 2,
    stepsPerEpisode: [3, 6],
    training: { models: ["alpha-7b"], epochs: 3 },
  });
}

/** Writes `dir/name` as a tslab notebook: a markdown intro, then one code cell per source (ids c1, c2, ...); its path. */
export function writeTestNotebook(dir: string, name: string, cells: string[]): string {
  const nb = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { display_name: "TypeScript", language: "typescript", name: "tslab" } },
    cells: [
      { cell_type: "markdown", id: "intro", metadata: {}, source: ["# test"] },
      ...cells.map((source, i) => ({ cell_type: "code", id: `c${i + 1}`, metadata: {}, source, outputs: [], execution_count: null })),
    ],
  };
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(nb));
  return path;
}
