/**
 * What the notebooks import: `notebookSettings` (S3GYM_DATA / S3GYM_OUT / S3GYM_BOOTSTRAP /
 * S3GYM_SEED), `tableHtml` (the same cell text as the Markdown table, intervals included), the
 * report's writers (`writeTables` + `saveFigure` write the bytes `writeReport` writes), and a library
 * entry that tslab can `require()` (no static path to vega, whose node build has a top-level await).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../../src/report/buildReport.js";
import type { Report } from "../../../src/report/entries.js";
import type { Table } from "../../../src/analysis/tables/table.js";
import { loadDataset } from "../../../src/analysis/load/dataset.js";
import { writeNotebookTestData } from "./data.js";
import { markdownOf, reportFigures, saveFigure, writeReport, writeTables } from "../../../src/report/writeReport.js";
import { columnsHtml, escapeHtml, frameHtml, tableHtml } from "../../../src/report/notebooks/html.js";
import { kitRoot, notebookSettings } from "../../../src/report/notebooks/settings.js";
import { tempDir } from "../../analysis/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

let report: Report;
let data: string;

beforeAll(async () => {
  data = tempDir("s3gym-nb-lib-");
  await writeNotebookTestData(data, 3);
  report = buildReport(await loadDataset([data]), { B: 100, seed: 0 });
});

describe("notebookSettings", () => {
  it("defaults to data/ and figures/ under the kit's root, B = 2000, seed 0", () => {
    expect(kitRoot()).toBe(resolve(ROOT));
    const s = notebookSettings({ S3GYM_DATA: data });
    expect(s.data).toEqual([data]);
    expect(s.out).toBe(join(ROOT, "figures"));
    expect([s.B, s.seed]).toEqual([2000, 0]);
  });

  it("takes relative paths from the kit's root, comma lists as shards, and the bootstrap settings", () => {
    const s = notebookSettings({ S3GYM_DATA: `${data},src`, S3GYM_OUT: "out/x", S3GYM_BOOTSTRAP: "200", S3GYM_SEED: "7" });
    expect(s.data).toEqual([data, join(ROOT, "src")]);
    expect(s.out).toBe(join(ROOT, "out", "x"));
    expect([s.B, s.seed]).toEqual([200, 7]);
  });

  it("says how to get data when the directory is missing, and rejects a bad B", () => {
    expect(() => notebookSettings({ S3GYM_DATA: "/nonexistent/s3gym-data" })).toThrow(/npm run reproduce/);
    expect(() => notebookSettings({ S3GYM_DATA: data, S3GYM_BOOTSTRAP: "0" })).toThrow(/S3GYM_BOOTSTRAP/);
  });
});

describe("tableHtml", () => {
  it("prints every cell as the Markdown table does (estimates with intervals), escaped", () => {
    for (const [name, table] of Object.entries(report.tables) as [string, Table<object>][]) {
      const md = markdownOf(name, table);
      const mdRows = md
        .split("\n")
        .filter((l) => l.startsWith("| ") && !l.startsWith("| --") && !/^\| (:--|--:)/.test(l))
        .slice(1);
      const html = tableHtml(table);
      const htmlRows = [...html.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!));
      expect(htmlRows.length, name).toBe(table.rows.length);
      htmlRows.forEach((cells, i) => {
        const mdCells = mdRows[i]!.slice(2, -2)
          .split(" | ")
          .map((c) => escapeHtml(c.replace(/\\\|/g, "|")));
        expect(cells, `${name} row ${i}`).toEqual(mdCells);
      });
      for (const note of table.notes) expect(html).toContain(escapeHtml(note));
    }
    expect(tableHtml(report.tables.main_results)).toMatch(/\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\]/);
  });

  it("escapes markup in labels", () => {
    expect(escapeHtml(`<b a="1">&</b>`)).toBe("&lt;b a=&quot;1&quot;&gt;&amp;&lt;/b&gt;");
    expect(columnsHtml({ model: ["<x>"], y: [0.12345] })).toContain("&lt;x&gt;</td>");
    expect(columnsHtml({ y: [0.12345, Number.NaN] })).toContain(">0.123<");
    expect(frameHtml({ columns: ["a"], values: [[1], [2], [3]] }, 2)).toContain("2 of 3 rows");
  });
});

describe("the report's writers", () => {
  it("a notebook's writeTables + saveFigure write the same bytes as writeReport", async () => {
    const whole = tempDir("s3gym-nb-whole-");
    const parts = tempDir("s3gym-nb-parts-");
    await writeReport(report, whole, [data]);
    await writeTables(report, parts, ["main_results", "main_results_wide", "training", "training_epochs"]);
    await writeTables(report, parts, ["self_judging", "positive_rates", "coupling", "run_level", "summary_vs_history"]);
    // Notebook 06's (issue 17): the cost tables are written for every data set.
    await writeTables(report, parts, ["cost", "cost_runs"]);
    // Notebook 00's (issue 26): run_quality, the gate of every other table.
    await writeTables(report, parts, ["run_quality"]);
    for (const figure of await reportFigures(report)) await saveFigure(figure, parts);
    const list = (d: string): string[] =>
      readdirSync(d, { recursive: true, encoding: "utf8" })
        .filter((f) => statSync(join(d, f)).isFile() && f !== "report.json")
        .sort();
    expect(list(parts)).toEqual(list(whole));
    for (const f of list(whole)) expect(readFileSync(join(parts, f)).equals(readFileSync(join(whole, f))), f).toBe(true);
    const meta = JSON.parse(readFileSync(join(whole, "report.json"), "utf8")) as { files: string[] };
    expect(meta.files).toContain("tables/main_results.csv");
    expect(meta.files).toContain("curves_snake.svg");
  });

  it("nothing under tables/ names the data's path or the time", async () => {
    const out = tempDir("s3gym-nb-paths-");
    await writeTables(report, out);
    for (const f of readdirSync(join(out, "tables"))) {
      const text = readFileSync(join(out, "tables", f), "utf8");
      expect(text, f).not.toContain(data);
      expect(text, f).not.toMatch(/20\d\d-\d\d-\d\dT/);
    }
  });
});

/** The static (non-dynamic) imports of a source file, resolved to source files of the kit. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const specs = [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\s+from\s+["']([^"']+)["']/gm)].map((m) => m[1]!);
  return specs;
}

describe("the library entry tslab loads with require()", () => {
  it("reaches no vega module through static imports (src/index.ts graph)", () => {
    const seen = new Set<string>();
    const external = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of staticImports(file)) {
        if (spec.startsWith(".")) visit(resolve(file, "..", spec.replace(/\.js$/, ".ts")));
        else external.add(spec);
      }
    };
    visit(join(ROOT, "src", "index.ts"));
    expect(seen.has(join(ROOT, "src", "report", "figures", "render.ts"))).toBe(false);
    expect([...external].filter((m) => /^vega($|-)|resvg/.test(m))).toEqual([]);
  });

  const dist = join(ROOT, "dist", "index.js");
  const built = existsSync(dist);
  it.skipIf(!built)(`dist/index.js loads with require() and exposes the notebook API${built ? "" : " (skipped: run 'npm run build')"}`, () => {
    const kit = createRequire(import.meta.url)(dist) as Record<string, unknown>;
    for (const name of ["notebookSettings", "loadDataset", "buildReport", "tableHtml", "writeTables", "reportFigures", "saveFigure", "loadFrames", "renderSvg", "frameHtml"]) {
      expect(kit[name], name).toBeTypeOf("function");
    }
  });
});
