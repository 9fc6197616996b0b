/**
 * Every interval a Markdown table prints is in its CSV: over a full report (every table `report`
 * writes, from a synthetic data set with learners, a built-in that cannot learn and the none
 * control), each Markdown cell showing `point [lo, hi]` must have `<column>_lo` and `<column>_hi` in
 * the CSV row at the same place, equal to the printed digits. Read from the written files, as a user
 * would, not from the builders.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { buildReport } from "../../src/report/buildReport.js";
import { writeTables } from "../../src/report/writeReport.js";
import { fmt3 } from "../../src/report/tables.js";
import { tempDir } from "../analysis/helpers.js";

/** CSV fields with RFC 4180 quoting. */
function csvLine(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") out.push(cur), (cur = "");
    else cur += ch;
  }
  out.push(cur);
  return out;
}

/** The Markdown table's header and body cells (a `\|` inside a cell is not a separator). */
function markdownTable(text: string): { head: string[]; rows: string[][] } {
  const lines = text.split("\n").filter((l) => l.startsWith("| "));
  const cells = (l: string): string[] => l.slice(2, -2).split(/(?<!\\) \| /);
  const [head, , ...rows] = lines;
  return { head: cells(head as string), rows: rows.map(cells) };
}

const INTERVAL = /^(-?\d+\.\d{3}) \[(-?\d+\.\d{3}), (-?\d+\.\d{3})\]/;

describe("every Markdown interval has its CSV columns", () => {
  let dir: string;
  beforeAll(async () => {
    const data = tempDir("s3gym-mdcsv-");
    await writeSyntheticData(data, {
      models: ["m1", "m2", "builtin:random"],
      games: ["chess", "trust"],
      pathways: ["none", "history", "memory"],
      exploreEpisodes: 9,
      checkpointEvery: 3,
      evalEpisodes: 4,
      stepsPerEpisode: [3, 5],
      training: { models: ["m1"], epochs: 3 },
    });
    dir = tempDir("s3gym-mdcsv-out-");
    await writeTables(buildReport(await loadDataset(data), { B: 60, seed: 0 }), dir);
  }, 240_000);

  it("in every table, every printed interval", () => {
    const names = readdirSync(join(dir, "tables"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.slice(0, -3));
    expect(names.length).toBeGreaterThan(8);
    let checked = 0;
    const missing: string[] = [];
    for (const name of names) {
      const md = markdownTable(readFileSync(join(dir, "tables", `${name}.md`), "utf8"));
      const [head, ...lines] = readFileSync(join(dir, "tables", `${name}.csv`), "utf8")
        .trimEnd()
        .split("\n");
      const cols = csvLine(head as string);
      const rows = lines.map(csvLine);
      expect(rows.length, name).toBe(md.rows.length);
      md.rows.forEach((cells, i) => {
        cells.forEach((cell, j) => {
          const m = INTERVAL.exec(cell);
          if (m === null) return;
          const key = md.head[j] as string;
          const lo = cols.indexOf(`${key}_lo`);
          const hi = cols.indexOf(`${key}_hi`);
          if (lo < 0 || hi < 0) return void missing.push(`${name}.${key}`);
          const row = rows[i] as string[];
          expect([fmt3(Number(row[lo])), fmt3(Number(row[hi]))], `${name} row ${i} ${key}`).toEqual([m[2], m[3]]);
          checked++;
        });
      });
    }
    expect([...new Set(missing)]).toEqual([]);
    // The test read real intervals (main_results alone prints hundreds).
    expect(checked).toBeGreaterThan(100);
  });
});
