/**
 * Executes notebooks headless (Jupyter + tslab, as `s3gym reproduce` does) against a small synthetic
 * data set: every cell runs without error, tables are displayed as HTML with intervals, figures
 * inline, and the files written are byte-identical to `s3gym report`'s. Needs Jupyter, the tslab
 * kernel spec and a built kit (`npm run build`): skipped with the reason otherwise. CI has all three
 * (and also runs every notebook through `npm run reproduce -- --quick`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { writeSyntheticData } from "../../../src/analysis/synthetic.js";
import { reportCommand } from "../../../src/cli/report.js";
import { checkJupyter, executeNotebook } from "../../../src/report/notebooks/jupyter.js";
import { tempDir } from "../../analysis/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

/** Source files the notebooks' imports compile from, whose dist/ output is missing or older. */
function staleBuild(): string[] {
  const stale: string[] = [];
  const src = join(ROOT, "src");
  for (const dir of ["analysis", "figures", "logs", "notebooks", "games", "agent"]) {
    for (const f of readdirSync(join(src, dir), { recursive: true, encoding: "utf8" })) {
      if (!f.endsWith(".ts")) continue;
      const built = join(ROOT, "dist", dir, f.replace(/\.ts$/, ".js"));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(src, dir, f)).mtimeMs) stale.push(`src/${dir}/${f}`);
    }
  }
  return stale;
}

function unavailable(): string | null {
  const check = checkJupyter(ROOT);
  if (!check.ok) return `Jupyter/tslab not available: ${check.problems[0]!.split("\n")[0]}`;
  const dist = join(ROOT, "dist", "index.js");
  if (!existsSync(dist)) return "the kit is not built: run 'npm run build'";
  const stale = staleBuild();
  if (stale.length > 0) return `dist/ is older than ${stale[0]}: run 'npm run build'`;
  return null;
}

const reason = unavailable();

interface Output {
  output_type: string;
  data?: Record<string, unknown>;
  text?: string[] | string;
  ename?: string;
}

describe("notebooks execute headless", () => {
  it.skipIf(reason !== null)(
    `00 (danfojs, custom plot) and 01 (Table 4) run on a synthetic data set${reason ? ` (skipped: ${reason})` : ""}`,
    async () => {
      const data = tempDir("s3gym-nb-exec-data-");
      const out = tempDir("s3gym-nb-exec-out-");
      const executed = join(out, "notebooks");
      mkdirSync(executed);
      await writeSyntheticData(data, {
        seed: 5,
        models: ["alpha-7b", "bravo-8b"],
        games: ["snake", "trust"],
        exploreEpisodes: 6,
        evalEpisodes: 2,
        stepsPerEpisode: [3, 6],
        training: { models: ["alpha-7b"], epochs: 3 },
      });
      const check = checkJupyter(ROOT);
      if (!check.ok) throw new Error("unreachable");
      const env = { S3GYM_DATA: data, S3GYM_OUT: out, S3GYM_BOOTSTRAP: "200", S3GYM_SEED: "0" };
      const names = ["00_explore_logs.ipynb", "01_main_results.ipynb"];
      await Promise.all(names.map((n) => executeNotebook(check.setup, join(ROOT, "notebooks", n), executed, env, 300)));

      for (const n of names) {
        const nb = JSON.parse(readFileSync(join(executed, n), "utf8")) as { cells: { cell_type: string; outputs?: Output[] }[] };
        const outputs = nb.cells.flatMap((c) => c.outputs ?? []);
        expect(outputs.filter((o) => o.output_type === "error"), n).toEqual([]);
        const html = outputs.map((o) => String(o.data?.["text/html"] ?? "")).join("\n");
        expect(html, n).toContain("<svg");
        if (n.startsWith("01")) {
          expect(html).toMatch(/<td[^>]*>\d+\.\d{3} \[-?\d+\.\d{3}, -?\d+\.\d{3}\]<\/td>/);
          const text = outputs.map((o) => (Array.isArray(o.text) ? o.text.join("") : (o.text ?? ""))).join("");
          expect(text).toContain("identical to the report's table: true");
        }
      }

      // The notebook wrote the report's files, byte for byte.
      const ref = tempDir("s3gym-nb-exec-ref-");
      const quiet = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      const rc = await reportCommand(["--data", data, "--out", ref, "--bootstrap", "200"]);
      quiet.mockRestore();
      expect(rc).toBe(0);
      const written = ["tables/main_results.csv", "tables/main_results.md", "curves_snake.svg", "curves_snake.png", "curves_trust.svg"];
      for (const f of written) expect(readFileSync(join(out, f)).equals(readFileSync(join(ref, f))), f).toBe(true);
    },
    300_000,
  );
});
