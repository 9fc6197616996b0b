/**
 * The table renderer for LaTeX: a table (data, `src/analysis/tables/table.ts`) to a booktabs `table` float
 * that a paper `\input`s, built from the same rows, columns, cell labels and notes as the Markdown and
 * CSV (writeReport.ts), so every report table, a new one included, gets its `.tex`.
 *
 * - Estimates: `0.547 [0.412, 0.690]` in one cell, or the estimate and its interval in two columns
 *   (`intervals: "columns"`). A cell whose interval rests on few units (Markdown's `n=3`) gets a
 *   superscript letter, one per distinct n, explained in the footnotes; instrument (‡), incomplete
 *   (†) and flagged (⚠) marks on a model become superscripts explained by the table's own notes, which
 *   follow the table as footnotes, the bootstrap line first. p-values print as the table gives them.
 * - Every text from outside (model names, game names, notes quoting logs) goes through `latexText`:
 *   LaTeX's special characters escaped, control characters dropped, characters pdflatex cannot set
 *   written as their code point, so any log compiles.
 * - Needs `\usepackage{booktabs}` and `\usepackage{graphicx}` (a wide table is scaled to the line
 *   width with `\resizebox`).
 */
import type { Estimate } from "../analysis/stats/bootstrap.js";
import type { Column, Table } from "../analysis/tables/table.js";
import { displayCell, fmt3, shownInterval } from "./tables.js";

/** How an estimate's interval is printed: in the estimate's cell, or in a column of its own. */
export type IntervalLayout = "cell" | "columns";

export interface LatexOptions {
  intervals: IntervalLayout;
  /** Decorates a row's cell text (the report's cellLabel: ‡, †, ⚠ on model names). */
  label?: (row: object, key: string, text: string) => string;
}

/** Characters pdflatex sets through a command (with T1 fonts and textcomp, both in the base install). */
const NAMED: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "{": "\\{",
  "}": "\\}",
  $: "\\$",
  "&": "\\&",
  "#": "\\#",
  "^": "\\textasciicircum{}",
  _: "\\_",
  "%": "\\%",
  "~": "\\textasciitilde{}",
  "<": "\\textless{}",
  ">": "\\textgreater{}",
  "|": "\\textbar{}",
  '"': "\\textquotedbl{}",
  "†": "\\textdagger{}",
  "‡": "\\textdaggerdbl{}",
  "⚠": "(!)",
  "±": "\\textpm{}",
  "×": "\\texttimes{}",
  "−": "\\textminus{}",
  "–": "--",
  "—": "---",
  "≥": "\\ensuremath{\\geq}",
  "≤": "\\ensuremath{\\leq}",
  "≈": "\\ensuremath{\\approx}",
  "→": "\\ensuremath{\\rightarrow}",
  ρ: "\\ensuremath{\\rho}",
  Δ: "\\ensuremath{\\Delta}",
  μ: "\\ensuremath{\\mu}",
  σ: "\\ensuremath{\\sigma}",
  "·": "\\textperiodcentered{}",
  "…": "\\ldots{}",
  "‘": "`",
  "’": "'",
  "“": "``",
  "”": "''",
  "\u00a0": "~",
};

/**
 * Text from anywhere as LaTeX text: specials escaped, control characters (C0, DEL, C1) dropped,
 * Latin-1 letters kept (T1 sets them), any other character written as `[U+XXXX]` so the document
 * compiles and the reader still sees which character it was. Linear in the text.
 */
export function latexText(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const named = NAMED[ch];
    if (named !== undefined) out += named;
    else if (cp === 0x0a || cp === 0x0d || cp === 0x09) out += " ";
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) continue;
    else if (cp < 0x7f || (cp >= 0xc0 && cp <= 0xff && cp !== 0xd7 && cp !== 0xf7)) out += ch;
    else out += `[U+${cp.toString(16).toUpperCase().padStart(4, "0")}]`;
  }
  return out;
}

function isEstimate(v: unknown): v is Estimate {
  return typeof v === "object" && v !== null && "point" in v;
}

/** Footnote letters for the distinct `n` of few-unit intervals, in order of first use. */
class NMarks {
  private readonly byN = new Map<number, string>();
  mark(n: number): string {
    let m = this.byN.get(n);
    if (m === undefined) {
      m = String.fromCharCode(97 + (this.byN.size % 26)) + (this.byN.size >= 26 ? String(Math.floor(this.byN.size / 26)) : "");
      this.byN.set(n, m);
    }
    return m;
  }
  notes(): string[] {
    return [...this.byN].map(([n, m]) => `\\textsuperscript{${m}}\\,n = ${n}: the interval rests on ${n} unit${n === 1 ? "" : "s"}, fewer than its stated coverage needs (indicative).`);
  }
}

/** An estimate's cells: `[point [lo, hi]]` or `[point, [lo, hi]]`, the few-unit mark as a superscript. */
function estimateCells(e: Estimate | null, layout: IntervalLayout, marks: NMarks): string[] {
  if (e === null || e.point === null) return layout === "cell" ? [""] : ["", ""];
  const iv = shownInterval(e);
  const few = (e.indicative === true && e.n !== undefined && iv !== null) || e.n === 1;
  const sup = few ? `\\textsuperscript{${marks.mark(e.n!)}}` : "";
  const extra = e.mark !== undefined ? ` ${latexText(e.mark)}` : "";
  const interval = iv === null ? "" : `[${fmt3(iv.lo)}, ${fmt3(iv.hi)}]`;
  if (layout === "cell") return [`${fmt3(e.point)}${interval ? ` ${interval}` : ""}${sup}${extra}`];
  return [`${fmt3(e.point)}${sup}${extra}`, interval];
}

/** A marked model name: the marks (‡ † ⚠) after the name as superscripts. */
function labelCell(text: string): string {
  const m = /^(.*?)((?:\s*[‡†⚠])+)$/u.exec(text);
  if (!m) return latexText(text);
  const marks = [...m[2]!.replace(/\s+/g, "")].map((c) => (c === "‡" ? "\\ddag" : c === "†" ? "\\dag" : "!")).join(",");
  return `${latexText(m[1]!)}\\textsuperscript{${marks}}`;
}

/**
 * Column groups from keys `<group> <sub>` (main_results_wide's `chess ICL`, `chess Memory`): a
 * header row of groups over their columns, then the subs. Null when the keys have no groups.
 */
function groups(columns: readonly Column[], span: (c: Column) => number): { top: string; rule: string; names: string[] } | null {
  const split = columns.map((c) => {
    const i = c.key.lastIndexOf(" ");
    return c.kind !== "text" && i > 0 ? { group: c.key.slice(0, i), sub: c.key.slice(i + 1) } : null;
  });
  if (!split.some((s) => s !== null)) return null;
  const top: string[] = [];
  const rules: string[] = [];
  let col = 1;
  for (let i = 0; i < columns.length; ) {
    const g = split[i]?.group;
    let j = i;
    let width = 0;
    while (j < columns.length && g !== undefined && split[j]?.group === g) width += span(columns[j++]!);
    if (g === undefined) {
      top.push(span(columns[i]!) === 2 ? "\\multicolumn{2}{c}{}" : "");
      col += span(columns[i]!);
      i++;
      continue;
    }
    top.push(`\\multicolumn{${width}}{c}{${latexText(g)}}`);
    rules.push(`\\cmidrule(lr){${col}-${col + width - 1}}`);
    col += width;
    i = j;
  }
  return { top: top.join(" & ") + " \\\\", rule: rules.join(" "), names: columns.map((c, i) => split[i]?.sub ?? c.key) };
}

/** Renders a table as a LaTeX `table` float (booktabs), its notes as footnotes under it. */
export function toLatex<R extends object>(table: Table<R>, opts: LatexOptions = { intervals: "cell" }): string {
  const marks = new NMarks();
  const layout = opts.intervals;
  const span = (c: Column): number => (c.kind === "estimate" && layout === "columns" ? 2 : 1);
  const align = table.columns.map((c) => (c.kind === "text" ? "l" : span(c) === 2 ? "rr" : "r")).join("");
  const g = groups(table.columns, span);
  const names = g?.names ?? table.columns.map((c) => c.key);
  const head = table.columns.flatMap((c, i) => (span(c) === 2 ? [latexText(names[i]!), "interval"] : [latexText(names[i]!)]));
  const body: string[] = [];
  let widest = head.join("  ").length;
  for (const row of table.rows) {
    const rec = row as Record<string, unknown>;
    const cells = table.columns.flatMap((c) => {
      const v = rec[c.key];
      if (c.kind === "estimate" || c.kind === "estimate_point") {
        const e = isEstimate(v) ? v : null;
        return c.kind === "estimate" ? estimateCells(e, layout, marks) : [fmt3(e?.point)];
      }
      const text = displayCell(v, c.kind);
      const labelled = opts.label ? opts.label(row, c.key, text) : text;
      return [labelled === text ? latexText(text) : labelCell(labelled)];
    });
    widest = Math.max(widest, cells.join("  ").replace(/\\[a-z]+\{([^}]*)\}/g, "$1").length);
    body.push(`${cells.join(" & ")} \\\\`);
  }
  const tabular = [
    `\\begin{tabular}{${align}}`,
    "\\toprule",
    ...(g ? [g.top, g.rule] : []),
    `${head.join(" & ")} \\\\`,
    "\\midrule",
    ...(body.length > 0 ? body : [`\\multicolumn{${table.columns.reduce((a, c) => a + span(c), 0)}}{l}{\\emph{(no rows: the data set has nothing for this table)}} \\\\`]),
    "\\bottomrule",
    "\\end{tabular}",
  ];
  // A table wider than about a text line (characters at \small, plus each column's padding) is
  // scaled to the line width (coupling's eight columns ran past a 7-inch text width at 110).
  const columnsOut = table.columns.reduce((a, c) => a + span(c), 0);
  const wide = widest + 3 * columnsOut > 95;
  const footnotes = [...marks.notes(), ...table.notes.map(latexText)];
  return [
    `% ${latexText(table.name)}: written by s3gym report from the same rows as tables/${latexText(table.name)}.csv and .md`,
    "\\begin{table}[htbp]",
    "\\centering\\small",
    `\\caption{${latexText(table.title)}}`,
    `\\label{tab:${table.name.replace(/[^A-Za-z0-9_-]/g, "-")}}`,
    ...(wide ? ["\\resizebox{\\linewidth}{!}{%", ...tabular, "}"] : tabular),
    ...(footnotes.length > 0 ? ["\\par\\smallskip", "{\\footnotesize\\raggedright", ...footnotes.map((n) => `${n}\\par`), "}"] : []),
    "\\end{table}",
    "",
  ].join("\n");
}

/** The rows of main_results that paperTable4 reads. */
interface Table4Row {
  model: string;
  game: string;
  pathway: string;
  complete?: boolean;
  avg: Estimate | null;
  max: Estimate | null;
  auc_plus: Estimate | null;
}

/**
 * The paper's own layout of Table 4: a block of rows per game, a row per model, Avg / Max / AUC+
 * under ICL (History) and under Memory. Built from main_results' rows; its notes follow as footnotes.
 */
export function paperTable4(main: Table<Table4Row>, opts: LatexOptions = { intervals: "cell" }): string {
  const marks = new NMarks();
  const metrics = [
    ["avg", "Avg"],
    ["max", "Max"],
    ["auc_plus", "AUC+"],
  ] as const;
  const sides = [
    ["history", "ICL"],
    ["memory", "Memory"],
  ] as const;
  const per = opts.intervals === "columns" ? 2 : 1;
  const width = 1 + sides.length * metrics.length * per;
  const games = [...new Set(main.rows.map((r) => r.game))].sort();
  const body: string[] = [];
  for (const game of games) {
    const rows = main.rows.filter((r) => r.game === game && sides.some(([p]) => p === r.pathway));
    const models = [...new Set(rows.map((r) => r.model))].sort();
    if (models.length === 0) continue;
    if (body.length > 0) body.push("\\midrule");
    body.push(`\\multicolumn{${width}}{l}{\\textit{${latexText(game)}}} \\\\`);
    for (const model of models) {
      const cells: string[] = [];
      for (const [pathway] of sides) {
        const r = rows.find((x) => x.model === model && x.pathway === pathway) ?? null;
        for (const [m] of metrics) cells.push(...estimateCells(r?.[m] ?? null, opts.intervals, marks));
      }
      const any = rows.find((x) => x.model === model)!;
      const labelled = opts.label ? opts.label(any, "model", model) : model;
      body.push(`\\quad ${labelled === model ? latexText(model) : labelCell(labelled)} & ${cells.join(" & ")} \\\\`);
    }
  }
  const sub = sides.flatMap(() => metrics.flatMap(([, name]) => (per === 2 ? [name, "interval"] : [name])));
  const rule = sides.map((_, i) => `\\cmidrule(lr){${2 + i * metrics.length * per}-${1 + (i + 1) * metrics.length * per}}`).join(" ");
  const footnotes = [...marks.notes(), ...main.notes.map(latexText)];
  return [
    "% main_results in the paper's layout of Table 4: written by s3gym report from the rows of tables/main_results.csv",
    "\\begin{table}[htbp]",
    "\\centering\\small",
    "\\caption{Main results (Table 4): Avg, Max and AUC+ of the checkpoint curves under History ICL and Summary Memory, per game}",
    "\\label{tab:main-results-paper}",
    "\\resizebox{\\linewidth}{!}{%",
    `\\begin{tabular}{l${"r".repeat(width - 1)}}`,
    "\\toprule",
    ` & ${sides.map(([, name]) => `\\multicolumn{${metrics.length * per}}{c}{${name}}`).join(" & ")} \\\\`,
    rule,
    `Model & ${sub.map(latexText).join(" & ")} \\\\`,
    "\\midrule",
    ...(body.length > 0 ? body : [`\\multicolumn{${width}}{l}{\\emph{(no History or Memory runs in this data set)}} \\\\`]),
    "\\bottomrule",
    "\\end{tabular}}",
    ...(footnotes.length > 0 ? ["\\par\\smallskip", "{\\footnotesize\\raggedright", ...footnotes.map((n) => `${n}\\par`), "}"] : []),
    "\\end{table}",
    "",
  ].join("\n");
}
