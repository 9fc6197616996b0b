/**
 * LaTeX tables: hand-written cases of the escaping and of a small table's cells, then a real compile:
 * a document that \inputs every .tex table a report writes and \includegraphics every figure PDF,
 * run through pdflatex. Without pdflatex the compile test is skipped, saying why; under CI=true it
 * fails instead (.ci/run installs Debian's texlive).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { main } from "../../src/cli/main.js";
import { latexText, paperTable4, toLatex } from "../../src/report/latex.js";
import type { Table } from "../../src/analysis/tables/table.js";
import { tempDir } from "../analysis/helpers.js";

const est = (point: number, lo: number, hi: number, n?: number, indicative?: boolean) => ({ point, lo, hi, ...(n !== undefined ? { n } : {}), ...(indicative !== undefined ? { indicative } : {}) });

describe("latexText", () => {
  it("escapes LaTeX's special characters", () => {
    expect(latexText("a_b & c%d $5 #1 {x} ~y ^z \\w")).toBe("a\\_b \\& c\\%d \\$5 \\#1 \\{x\\} \\textasciitilde{}y \\textasciicircum{}z \\textbackslash{}w");
  });
  it("drops control characters, keeps Latin-1 letters, writes other characters as their code point", () => {
    expect(latexText("a\u0000b\u001bc\u0085d")).toBe("abcd");
    expect(latexText("line\nbreak\ttab")).toBe("line break tab");
    expect(latexText("café ü")).toBe("café ü");
    expect(latexText("模型🙂")).toBe("[U+6A21][U+578B][U+1F642]");
    expect(latexText("a ‡ † ≥ ρ")).toBe("a \\textdaggerdbl{} \\textdagger{} \\ensuremath{\\geq} \\ensuremath{\\rho}");
  });
});

describe("toLatex", () => {
  const table: Table<Record<string, unknown>> = {
    name: "toy",
    title: "A toy_table",
    columns: [
      { key: "model", kind: "text" },
      { key: "avg", kind: "estimate" },
      { key: "p", kind: "p" },
    ],
    rows: [
      { model: "m&1", avg: est(0.5, 0.25, 0.75), p: 0.01234 },
      { model: "m2", avg: est(0.375, 0, 0.5625, 3, true), p: null },
    ],
    notes: ["95% percentile bootstrap, B = 100, seed 0", "‡ instrument: a built-in model"],
  };

  it("puts estimate and interval in one cell, a few-unit interval marked with a footnote letter", () => {
    const tex = toLatex(table, { intervals: "cell" });
    expect(tex).toContain("\\begin{tabular}{lrr}");
    expect(tex).toContain("m\\&1 & 0.500 [0.250, 0.750] & 0.0123 \\\\");
    expect(tex).toContain("m2 & 0.375 [0.000, 0.563]\\textsuperscript{a} &  \\\\");
    expect(tex).toContain("\\textsuperscript{a}\\,n = 3: the interval rests on 3 units");
    expect(tex).toContain("\\textdaggerdbl{} instrument: a built-in model\\par");
    expect(tex).toContain("\\caption{A toy\\_table}");
  });

  it("or in two columns", () => {
    const tex = toLatex(table, { intervals: "columns" });
    expect(tex).toContain("\\begin{tabular}{lrrr}");
    expect(tex).toContain("model & avg & interval & p \\\\");
    expect(tex).toContain("m\\&1 & 0.500 & [0.250, 0.750] & 0.0123 \\\\");
  });

  it("turns a model's marks into superscripts", () => {
    const tex = toLatex(table, { intervals: "cell", label: (row, key, text) => (key === "model" && (row as { model: string }).model === "m2" ? `${text} †` : text) });
    expect(tex).toContain("m2\\textsuperscript{\\dag} & ");
  });

  it("lays Table 4 out per game, Avg / Max / AUC+ under ICL and Memory", () => {
    const row = (model: string, game: string, pathway: string, v: number) => ({ model, game, pathway, avg: est(v, v - 0.5, v + 0.5), max: est(v + 1, v, v + 2), auc_plus: est(0, 0, 0) });
    const main = { name: "main_results", title: "t", columns: [], notes: [], rows: [row("a", "snake", "history", 1), row("a", "snake", "memory", 2), row("a", "snake", "none", 9)] };
    const tex = paperTable4(main as never);
    expect(tex).toContain("\\multicolumn{3}{c}{ICL} & \\multicolumn{3}{c}{Memory}");
    expect(tex).toContain("\\multicolumn{7}{l}{\\textit{snake}}");
    expect(tex).toContain("\\quad a & 1.000 [0.500, 1.500] & 2.000 [1.000, 3.000] & 0.000 [0.000, 0.000] & 2.000 [1.500, 2.500] & 3.000 [2.000, 4.000] & 0.000 [0.000, 0.000] \\\\");
    expect(tex).not.toContain("9.000");
  });
});

/** Whether pdflatex runs here. */
function hasPdflatex(): boolean {
  return spawnSync("pdflatex", ["--version"], { encoding: "utf8" }).status === 0;
}

const PDFLATEX = hasPdflatex();
const ci = process.env.CI === "true";

describe("a LaTeX document with every table and figure of a report", () => {
  if (!PDFLATEX && !ci) {
    it.skip("compiles (skipped: pdflatex is not installed; `apt-get install texlive-latex-base texlive-latex-recommended`, as .ci/run does)", () => {});
    return;
  }
  it("compiles with pdflatex", async () => {
    expect(PDFLATEX, "pdflatex must be installed under CI (.ci/run installs texlive)").toBe(true);
    const dir = tempDir("s3gym-latex-");
    const data = join(dir, "data");
    await writeSyntheticData(data, {
      seed: 5,
      models: ["lab/model_v1 & co #2", "base_%\u0007模型"],
      games: ["snake"],
      pathways: ["history", "memory", "none"],
      exploreEpisodes: 4,
      checkpointEvery: 2,
      evalEpisodes: 2,
      stepsPerEpisode: [2, 3],
    });
    const out = join(dir, "out");
    expect(await main(["report", "--data", data, "--out", out, "--bootstrap", "30", "--figure-size", "column"])).toBe(0);
    const tables = readdirSync(join(out, "tables"))
      .filter((f) => f.endsWith(".tex"))
      .sort();
    const pdfs = readdirSync(out)
      .filter((f) => f.endsWith(".pdf"))
      .sort();
    expect(tables).toEqual(expect.arrayContaining(["main_results.tex", "main_results_paper.tex", "self_judging.tex"]));
    expect(pdfs.length).toBeGreaterThan(2);
    const doc = [
      "\\documentclass{article}",
      "\\usepackage[T1]{fontenc}",
      "\\usepackage{booktabs,graphicx}",
      "\\usepackage[margin=2cm]{geometry}",
      "\\begin{document}",
      ...tables.map((t) => `\\input{tables/${t.slice(0, -4)}}\\clearpage`),
      ...pdfs.map((p) => `\\begin{figure}[htbp]\\centering\\includegraphics[width=\\linewidth]{${p.slice(0, -4)}}\\input{${p.slice(0, -4)}.caption}\\end{figure}\\clearpage`),
      "\\end{document}",
    ].join("\n");
    writeFileSync(join(out, "paper.tex"), doc);
    const run = spawnSync("pdflatex", ["-interaction=nonstopmode", "-halt-on-error", "paper.tex"], { cwd: out, encoding: "utf8", timeout: 120_000 });
    expect(run.status, run.stdout.slice(-3000)).toBe(0);
    const log = readFileSync(join(out, "paper.log"), "utf8");
    expect(log).not.toMatch(/^! /m);
    expect(readFileSync(join(out, "paper.pdf")).subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(run.stdout).toMatch(/Output written on paper\.pdf \((\d+) pages?/);
    const pages = Number(/Output written on paper\.pdf \((\d+) page/.exec(run.stdout)![1]);
    expect(pages).toBeGreaterThanOrEqual(tables.length + pdfs.length);
    process.env.S3GYM_KEEP_LATEX && writeFileSync(process.env.S3GYM_KEEP_LATEX, out);
  }, 600_000);
});
