/** `s3gym compare` and `s3gym power` as a user runs them: exit codes, the CSV columns, errors. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { compareCommand } from "../../src/cli/compare/compare.js";
import { main } from "../../src/cli/main.js";
import { powerCommand } from "../../src/cli/power/power.js";
import { tempDir } from "../analysis/helpers.js";
import { run } from "./capture.js";

let data: string;

beforeAll(async () => {
  data = tempDir("s3gym-cli-compare-");
  await writeSyntheticData(data, { seed: 4, models: ["a", "b"], games: ["snake", "trust"], exploreEpisodes: 6, checkpointEvery: 3, evalEpisodes: 6, stepsPerEpisode: [2, 3], failRate: 0 });
});
afterEach(() => vi.restoreAllMocks());

describe("s3gym compare", () => {
  it("prints the Markdown table and writes the same rows with the issue's columns to --csv", async () => {
    const csv = join(tempDir("s3gym-cli-compare-out-"), "cmp.csv");
    const r = await run(compareCommand, ["--data", data, "--a", "pathway=memory", "--b", "pathway=history", "--bootstrap", "100", "--csv", csv]);
    expect(r.rc).toBe(0);
    expect(r.out).toContain("| game | metric | n_seeds | a | b | diff | lo | hi | indicative | p | p_holm |");
    const lines = readFileSync(csv, "utf8").trim().split("\n");
    expect(lines[0]).toBe("game,metric,n_seeds,a,b,diff,lo,hi,indicative,p,p_holm");
    // 2 games x 3 default metrics, 6 seeds each
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 3).join(","))).toEqual(["snake,avg,6", "snake,auc_plus,6", "snake,naba,6", "trust,avg,6", "trust,auc_plus,6", "trust,naba,6"]);
  });

  it("bad selectors are usage errors naming the flag (the dispatcher exits 2); unpairable sides exit 1", async () => {
    await expect(compareCommand(["--data", data, "--a", "pathwy=memory", "--b", "pathway=history"])).rejects.toThrow(/^--a: unknown key 'pathwy': expected one of pathway, model, checkpoint/);
    const none = await run(main, ["compare", "--data", data, "--a", "model=zz", "--b", "model=a"]);
    expect(none.rc).toBe(1);
    expect(none.err).toBe("s3gym compare: side a: no run has model=zz: the data has a, b\n");
  });
});

describe("s3gym power", () => {
  it("writes game, metric, episodes, mdd, note; empty mdd (and a note saying why) where the sign-flip test cannot reject", async () => {
    const csv = join(tempDir("s3gym-cli-power-out-"), "power.csv");
    const r = await run(powerCommand, ["--data", data, "--episodes", "3,10", "--metrics", "avg", "--sims", "200", "--csv", csv]);
    expect(r.rc).toBe(0);
    const lines = readFileSync(csv, "utf8").trim().split("\n");
    expect(lines[0]).toBe("game,metric,episodes,mdd,note");
    // 3 seeds: the smallest two-sided sign-flip p is 2/2^3 = 0.25, so no difference is detectable and the note says why.
    expect(lines[1]).toBe("snake,avg,3,,p < 0.05 unreachable with 3 seeds");
    expect(lines[2]).toMatch(/^snake,avg,10,\d+(\.\d+)?,/);
  });
});
