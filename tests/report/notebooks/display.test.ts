/**
 * The notebook display helpers send ONE multi-MIME bundle per table or figure through tslab's
 * display hook (what survives export), and the fs-backed export writes CSV and JSON.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Table } from "../../../src/analysis/tables/table.js";
import { showColumns, showFigure, showFrame, showTable, tablePlainText } from "../../../src/report/notebooks/display.js";
import { exportFrame, frameCsv, frameJson } from "../../../src/report/notebooks/export.js";
import { tempDir } from "../../analysis/helpers.js";

const jupyter = createRequire(import.meta.url)("tslab/dist/jupyter") as { lastWriteDisplayData: unknown };
const shown: Record<string, string>[] = [];
function capture(): void {
  shown.length = 0;
  jupyter.lastWriteDisplayData = (d: { data: Record<string, string> }) => shown.push(d.data);
}
afterEach(() => {
  jupyter.lastWriteDisplayData = null;
});

const table: Table<{ model: string; n: number; est: { point: number; lo: number; hi: number } | null }> = {
  name: "demo",
  title: "A demo table",
  columns: [
    { key: "model", kind: "text" },
    { key: "n", kind: "int" },
    { key: "est", kind: "estimate" },
  ],
  rows: [
    { model: "alpha", n: 12, est: { point: 0.5, lo: 0.25, hi: 0.75 } },
    { model: "b<c>", n: 3, est: null },
  ],
  notes: ["Intervals: 95% percentile bootstrap, B = 10, seed = 0."],
};

describe("showTable", () => {
  it("one bundle: HTML, the report's Markdown, and aligned plain text with the same cells", () => {
    capture();
    showTable(table);
    expect(shown).toHaveLength(1);
    const b = shown[0]!;
    expect(Object.keys(b).sort()).toEqual(["text/html", "text/markdown", "text/plain"]);
    expect(b["text/html"]).toContain('<td style="padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;white-space:nowrap">b&lt;c&gt;</td>');
    expect(b["text/markdown"]).toContain("| alpha | 12 | 0.500 [0.250, 0.750] |");
    expect(b["text/plain"]).toBe(
      [
        "A demo table",
        "",
        "model   n                   est",
        "-----  --  --------------------",
        "alpha  12  0.500 [0.250, 0.750]",
        "b<c>    3",
        "",
        "Intervals: 95% percentile bootstrap, B = 10, seed = 0.",
        "",
      ].join("\n"),
    );
  });

  it("an empty table says so in its text", () => {
    expect(tablePlainText({ ...table, rows: [] })).toContain("(no rows: the data set has nothing for this table)");
  });

  it("outside a notebook cell it throws a clear error instead of printing nothing", () => {
    jupyter.lastWriteDisplayData = null;
    expect(() => showTable(table)).toThrow("not running inside a notebook cell");
  });
});

describe("showFigure, showFrame, showColumns", () => {
  it("a figure is SVG + PNG (base64) + its caption", () => {
    capture();
    showFigure({ svg: "<svg/>", png: Uint8Array.from([137, 80, 78, 71]), caption: "title\nn = 3" });
    expect(shown).toEqual([{ "image/svg+xml": "<svg/>", "image/png": "iVBORw==", "text/plain": "title\nn = 3" }]);
  });

  it("frames and columns are HTML + aligned text (numbers right-aligned, NaN empty)", () => {
    capture();
    showColumns({ model: ["a", "bb"], score: [1.5, Number.NaN] });
    showFrame(
      {
        columns: ["x", "y"],
        values: [
          [1, "p"],
          [22, "q"],
          [3, "r"],
        ],
      },
      2,
    );
    expect(shown[0]!["text/plain"]).toBe("model  score\n-----  -----\na      1.500\nbb\n");
    expect(shown[1]!["text/plain"]).toBe(" x  y\n--  -\n 1  p\n22  q\n2 of 3 rows\n");
    expect(shown[1]!["text/html"]).toContain("2 of 3 rows");
  });
});

describe("exportFrame", () => {
  it("writes CSV (full precision, NaN and null empty, quoted like the tables) and JSON (NaN as null)", () => {
    const cols = { name: ["a,b", 'say "hi"', null], x: [0.1 + 0.2, Number.NaN, 3], ok: [true, false, null] };
    expect(frameCsv(cols)).toBe('name,x,ok\n"a,b",0.30000000000000004,true\n"say ""hi""",,false\n,3,\n');
    expect(JSON.parse(frameJson(cols))).toEqual([
      { name: "a,b", x: 0.30000000000000004, ok: true },
      { name: 'say "hi"', x: null, ok: false },
      { name: null, x: 3, ok: null },
    ]);
    const dir = tempDir("s3gym-export-");
    const r = exportFrame(
      {
        columns: ["a", "b"],
        values: [
          [1, "x"],
          [2, "y"],
        ],
      },
      join(dir, "sub", "f.csv"),
    );
    expect(r.rows).toBe(2);
    expect(readFileSync(join(dir, "sub", "f.csv"), "utf8")).toBe("a,b\n1,x\n2,y\n");
  });

  it("refuses other extensions and ragged columns, naming the problem", () => {
    expect(() => exportFrame({ a: [1] }, "/tmp/x.xlsx")).toThrow("must end in .csv or .json");
    expect(() => frameCsv({ a: [1, 2], b: [1] })).toThrow("column 'b' has 1 values, the others 2");
  });
});
