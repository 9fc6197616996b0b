/**
 * Executes the kit's notebooks headless against a small synthetic data set, as `s3gym reproduce`
 * does: with the Node engine (always: Node alone is enough, `npm test` builds the kit first), and
 * with the Jupyter engine when Jupyter and the tslab kernel spec are installed (CI installs them).
 *
 * Every code cell runs without error; tables display as HTML + the report's Markdown + aligned text,
 * figures as SVG + PNG + their caption; the files written are byte-identical to `s3gym report`'s,
 * and the two engines write the same bytes.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { writeNotebookTestData } from "./data.js";
import { reportCommand } from "../../../src/cli/report/report.js";
import { executedProblems, NOTEBOOK_ENGINES } from "../../../src/report/notebooks/engines.js";
import { tempDir } from "../../analysis/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

/** Source files whose dist/ output is missing or older (the notebooks import the built kit). */
function staleBuild(): string[] {
  const stale: string[] = [];
  const src = join(ROOT, "src");
  for (const f of readdirSync(src, { recursive: true, encoding: "utf8" })) {
    if (!f.endsWith(".ts")) continue;
    const built = join(ROOT, "dist", f.replace(/\.ts$/, ".js"));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(src, f)).mtimeMs) stale.push(`src/${f}`);
  }
  return stale;
}

function buildProblem(): string | null {
  const problems = NOTEBOOK_ENGINES.node.check(ROOT);
  if (problems.length > 0) return problems[0]!;
  const stale = staleBuild();
  return stale.length > 0 ? `dist/ is older than ${stale[0]}: run 'npm run build' (npm test does)` : null;
}

const notBuilt = buildProblem();
const noJupyter = notBuilt ?? NOTEBOOK_ENGINES.jupyter.check(ROOT)[0]?.split("\n")[0] ?? null;

interface Output {
  output_type: string;
  data?: Record<string, unknown>;
  text?: string[] | string;
}
type Nb = { cells: { cell_type: string; id: string; outputs?: Output[] }[] };

const text = (v: unknown): string => (Array.isArray(v) ? v.join("") : typeof v === "string" ? v : "");
const NAMES = ["00_explore_logs.ipynb", "01_main_results.ipynb"];

let data: string;
let ref: string;
beforeAll(async () => {
  data = tempDir("s3gym-nb-exec-data-");
  await writeNotebookTestData(data, 5);
  ref = tempDir("s3gym-nb-exec-ref-");
  const quiet = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    expect(await reportCommand(["--data", data, "--out", ref, "--bootstrap", "200"])).toBe(0);
  } finally {
    quiet.mockRestore();
  }
});

async function execute(engine: "node" | "jupyter", names: readonly string[]): Promise<string> {
  const out = tempDir(`s3gym-nb-exec-${engine}-`);
  const env = { S3GYM_DATA: data, S3GYM_OUT: out, S3GYM_BOOTSTRAP: "200", S3GYM_SEED: "0" };
  await Promise.all(names.map((n) => NOTEBOOK_ENGINES[engine].execute(ROOT, join(ROOT, "notebooks", n), join(out, "notebooks"), env, 300)));
  return out;
}

const WRITTEN = ["tables/main_results.csv", "tables/main_results.md", "curves_snake.svg", "curves_snake.png", "curves_trust.svg", "curves_trust.png"];

describe("notebooks with the node engine (Node alone)", () => {
  it.skipIf(notBuilt !== null)(
    `00 (frames, paired comparison, export) and 01 (Table 4, Figures 3-6) run, with outputs that survive export${notBuilt ? ` (skipped: ${notBuilt})` : ""}`,
    async () => {
      const out = await execute("node", NAMES);
      for (const n of NAMES) {
        expect(executedProblems(join(out, "notebooks", n)), n).toEqual([]);
        const nb = JSON.parse(readFileSync(join(out, "notebooks", n), "utf8")) as Nb;
        const displays = nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.output_type === "display_data");
        // Every figure: SVG + PNG + its caption; every table: HTML + Markdown (or its text) + plain text.
        const figures = displays.filter((o) => o.data?.["image/svg+xml"] !== undefined);
        expect(figures.length, n).toBeGreaterThan(0);
        for (const f of figures) {
          expect(Object.keys(f.data!).sort()).toEqual(["image/png", "image/svg+xml", "text/plain"]);
          expect(String(f.data!["image/png"]).startsWith("iVBORw0KGgo")).toBe(true); // base64 of the PNG signature
        }
        for (const d of displays.filter((o) => o.data?.["text/html"] !== undefined)) expect(d.data!["text/plain"], n).toBeDefined();
      }
      const nb01 = JSON.parse(readFileSync(join(out, "notebooks", "01_main_results.ipynb"), "utf8")) as Nb;
      const tableOut = nb01.cells.find((c) => c.id === "01-03")!.outputs![0]!;
      expect(Object.keys(tableOut.data!).sort()).toEqual(["text/html", "text/markdown", "text/plain"]);
      // The Markdown in the notebook is the report's file, byte for byte; the text has the same cells.
      expect(text(tableOut.data!["text/markdown"])).toBe(readFileSync(join(ref, "tables", "main_results.md"), "utf8"));
      expect(text(tableOut.data!["text/plain"])).toMatch(/\d+\.\d{3} \[-?\d+\.\d{3}, -?\d+\.\d{3}\]/);
      const curveCaption = text(nb01.cells.find((c) => c.id === "01-06")!.outputs!.find((o) => o.data?.["text/plain"])!.data!["text/plain"]);
      expect(curveCaption).toContain("n = 2 episodes per point");
      expect(curveCaption).toContain("95% percentile bootstrap, B = 200, seed 0");
      const streams = nb01.cells
        .flatMap((c) => c.outputs ?? [])
        .map((o) => text(o.text))
        .join("");
      expect(streams).toContain("identical to the report's table: true");
      // 00 exported through fs.
      expect(readdirSync(join(out, "exports")).sort()).toEqual(["00_eval_episodes_snake.json", "00_paired_snake.csv"]);
      expect(readFileSync(join(out, "exports", "00_paired_snake.csv"), "utf8").split("\n")[0]).toBe("game,model,n_pairs,memory_minus_history,lo,hi");
      // The notebooks wrote the report's files, byte for byte.
      for (const f of WRITTEN) expect(readFileSync(join(out, f)).equals(readFileSync(join(ref, f))), f).toBe(true);
    },
    300_000,
  );
});

describe("notebooks with the jupyter engine", () => {
  it.skipIf(noJupyter !== null)(
    `01 writes the same bytes as with the node engine and the same kinds of output${noJupyter ? ` (skipped: ${noJupyter})` : ""}`,
    async () => {
      const out = await execute("jupyter", ["01_main_results.ipynb"]);
      expect(executedProblems(join(out, "notebooks", "01_main_results.ipynb"))).toEqual([]);
      for (const f of WRITTEN) expect(readFileSync(join(out, f)).equals(readFileSync(join(ref, f))), f).toBe(true);
      const nb = JSON.parse(readFileSync(join(out, "notebooks", "01_main_results.ipynb"), "utf8")) as Nb;
      const tableOut = nb.cells.find((c) => c.id === "01-03")!.outputs!.find((o) => o.output_type === "display_data")!;
      expect(Object.keys(tableOut.data!).sort()).toEqual(["text/html", "text/markdown", "text/plain"]);
    },
    300_000,
  );

  it.skipIf(noJupyter !== null)(
    `a failing cell names the cell and the real error (not "<Error>: "), and later cells do not run${noJupyter ? ` (skipped: ${noJupyter})` : ""}`,
    async () => {
      const dir = tempDir("s3gym-nb-jfail-");
      const cell = (id: string, source: string) => ({ cell_type: "code", id, metadata: {}, source, outputs: [], execution_count: null });
      const nb = {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { kernelspec: { name: "tslab", display_name: "TypeScript", language: "typescript" } },
        cells: [cell("a", "console.log('hi');"), cell("b", "throw new RangeError('boom in cell b');"), cell("c", "console.log('never');")],
      };
      writeFileSync(join(dir, "bad.ipynb"), JSON.stringify(nb));
      const err = await NOTEBOOK_ENGINES.jupyter.execute(ROOT, join(dir, "bad.ipynb"), join(dir, "out"), {}, 120).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toContain("bad.ipynb failed (jupyter engine, exit 1)");
      expect(err?.message).toContain("cell 2 (id b) failed:");
      expect(err?.message).toContain("RangeError: boom in cell b");
      const out = JSON.parse(readFileSync(join(dir, "out", "bad.ipynb"), "utf8")) as { cells: { execution_count: number | null; outputs: Output[] }[] };
      expect(out.cells.map((c) => c.execution_count)).toEqual([1, 2, null]);
      expect(out.cells[1]!.outputs.find((o) => o.output_type === "error")).toMatchObject({ ename: "RangeError", evalue: "boom in cell b" });
    },
    300_000,
  );
});
