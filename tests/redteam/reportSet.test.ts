/**
 * Red team, item 9 of issue 12: `s3gym report` replaces its files as one set. A second report over
 * data with fewer games used to leave the first report's curves_<game> figures beside the new set,
 * unlisted; a report stopped between two writes used to leave new tables beside old ones and an old
 * report.json. Now: the set is staged and moved in place (an interrupted move is finished by the
 * next report), report.json lists exactly what the report owns, owned files it no longer writes are
 * removed, and files it never owned (a notebook's, the user's) stay.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Report } from "../../src/report/entries.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { curveFigureNames, drawFigures, writeReport } from "../../src/report/writeReport.js";
import { tempDir } from "../analysis/helpers.js";

const SMALL = { seed: 3, pathways: ["history"], exploreEpisodes: 6, checkpointEvery: 3, evalEpisodes: 2, stepsPerEpisode: [3, 5] as [number, number], failRate: 0 };

let twoGames: Report;
let oneGame: Report;

beforeAll(async () => {
  const a = tempDir();
  const b = tempDir();
  await writeSyntheticData(a, { ...SMALL, models: ["m"], games: ["snake", "trust"] });
  await writeSyntheticData(b, { ...SMALL, models: ["m"], games: ["snake"] });
  twoGames = buildReport(await loadDataset([a]), { B: 20, seed: 0, requireComplete: false });
  oneGame = buildReport(await loadDataset([b]), { B: 20, seed: 0, requireComplete: false });
});

/** Every file under `dir` (relative, `/`-separated), hidden ones included. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => f.split("\\").join("/"))
    .sort();
}

const owned = (dir: string): string[] => (JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as { files: string[] }).files;

describe("report as one set", () => {
  it("a new report removes the figures of a game it no longer has, keeps files it never owned, and lists exactly its own", async () => {
    const out = tempDir("s3gym-reportset-");
    await writeReport(twoGames, out, ["a"]);
    expect(files(out)).toContain("curves_trust.svg");
    mkdirSync(join(out, "notebooks"));
    writeFileSync(join(out, "notebooks", "01_main_results.ipynb"), "{}");
    writeFileSync(join(out, "notes.txt"), "mine");
    await writeReport(oneGame, out, ["b"]);
    expect(existsSync(join(out, "curves_trust.svg"))).toBe(false);
    expect(existsSync(join(out, "curves_trust.png"))).toBe(false);
    expect(existsSync(join(out, "curves_snake.svg"))).toBe(true);
    expect(readFileSync(join(out, "notes.txt"), "utf8")).toBe("mine");
    expect(existsSync(join(out, "notebooks", "01_main_results.ipynb"))).toBe(true);
    // What is on disk is the report's list plus the two files it never owned: nothing unlisted.
    expect(files(out)).toEqual([...owned(out), "notebooks/01_main_results.ipynb", "notes.txt"].sort());
  });

  it("a report stopped before its set is complete leaves the previous report byte for byte", async () => {
    const out = tempDir("s3gym-reportset-");
    await writeReport(twoGames, out, ["a"]);
    const before = new Map(files(out).map((f) => [f, readFileSync(join(out, f))]));
    const stop = () => {
      throw new Error("killed while rendering");
    };
    await expect(writeReport(oneGame, out, ["b"], { faults: { beforeJournal: stop } })).rejects.toThrow("killed");
    expect(files(out)).toEqual([...before.keys()]);
    for (const [f, bytes] of before) expect(readFileSync(join(out, f)).equals(bytes), f).toBe(true);
  });

  it("a report stopped between two moves is finished by the next report, which warns and then writes its own set", async () => {
    const out = tempDir("s3gym-reportset-");
    await writeReport(twoGames, out, ["a"]);
    const stop = (n: number) => {
      if (n === 3) throw new Error("killed while moving");
    };
    await expect(writeReport(oneGame, out, ["b"], { faults: { afterMove: stop } })).rejects.toThrow("killed");
    // The instant's mix: new tables, the old report.json (moved last) still naming data 'a'.
    expect((JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { data: string[] }).data).toEqual(["a"]);
    const warnings: string[] = [];
    await writeReport(twoGames, out, ["c"], { onWarning: (w) => warnings.push(w) });
    expect(warnings.join("\n")).toMatch(/finished the report an interrupted run had begun/);
    expect((JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { data: string[] }).data).toEqual(["c"]);
    expect(files(out)).toEqual(owned(out).sort());
    expect(files(out)).toContain("curves_trust.svg");
  });

  it("an earlier report.json that is not a report's owns nothing: no file is removed, and a warning says so", async () => {
    const out = tempDir("s3gym-reportset-");
    writeFileSync(join(out, "report.json"), "{ torn");
    writeFileSync(join(out, "curves_old.svg"), "<svg/>");
    const warnings: string[] = [];
    await writeReport(oneGame, out, ["b"], { onWarning: (w) => warnings.push(w) });
    expect(warnings.join("\n")).toMatch(/report\.json is not a report's index.*no earlier report file is removed/);
    expect(readFileSync(join(out, "curves_old.svg"), "utf8")).toBe("<svg/>");
  });
});

describe("figure names", () => {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "_");
  it("two games whose names make one file name each keep their own figure", () => {
    const names = curveFigureNames(["a/b", "a_b", "snake"], safe);
    expect(names.get("snake")).toBe("curves_snake");
    // Both colliding names get a hash of their exact game name; a name that collides with none keeps its stem.
    expect(names.get("a/b")).toMatch(/^curves_a_b-[0-9a-f]{8}$/);
    expect(names.get("a_b")).toMatch(/^curves_a_b-[0-9a-f]{8}$/);
    expect(names.get("a/b")).not.toBe(names.get("a_b"));
    expect(curveFigureNames(["a_b", "a/b"], safe)).toEqual(
      new Map([
        ["a_b", names.get("a_b")],
        ["a/b", names.get("a/b")],
      ]),
    );
  });

  it("two view games whose names make one file name each keep their own views figure", async () => {
    // No views data: the three figures are named (and left unwritten, for want of data) all the same.
    const { drawn, notDrawn } = await drawFigures({ ...oneGame, viewGames: ["a/b", "a_b", "snake"], views: [] }, ["views"]);
    const names = [...drawn, ...notDrawn].map((f) => f.name);
    expect(names).toContain("views_snake");
    expect(names.filter((n) => /^views_a_b-[0-9a-f]{8}$/.test(n))).toHaveLength(2);
    expect(new Set(names).size).toBe(3);
  });
});
