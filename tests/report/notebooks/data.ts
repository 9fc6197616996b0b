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
