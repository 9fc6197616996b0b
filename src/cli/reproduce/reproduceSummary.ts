/**
 * reproduce's last phase: where every table and figure is and what it reproduces, read from what the
 * report wrote (`<out>/tables/*.md`, `<out>/*.svg`, report.json's interval methods), each file
 * described by its report entry (src/report/entries.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { methodsNamed } from "../../analysis/stats/bootstrap.js";
import { describeEntry, REPORT_ENTRIES, type ReportEntry } from "../../report/entries.js";

/** What a report wrote under its folder: table and figure stems (sorted) and each table's interval line. */
export interface WrittenReport {
  tables: string[];
  figures: string[];
  /** report.json's interval_methods (table -> its first note); empty when absent or unreadable. */
  intervalMethods: Record<string, string>;
}

/** Reads what the report wrote under `outDir`. */
export function readWrittenReport(outDir: string): WrittenReport {
  return {
    tables: readdirSync(join(outDir, "tables"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => f.replace(/\.md$/, "")),
    figures: readdirSync(outDir)
      .filter((f) => f.endsWith(".svg"))
      .sort()
      .map((f) => f.replace(/\.svg$/, "")),
    intervalMethods: readIntervalMethods(join(outDir, "report.json")),
  };
}

/** report.json's interval_methods (table -> its interval line); empty when absent or unreadable. */
function readIntervalMethods(file: string): Record<string, string> {
  try {
    const parsed = z.object({ interval_methods: z.record(z.string(), z.string()) }).safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data.interval_methods : {};
  } catch {
    return {};
  }
}

/**
 * The summary's table and figure lines: under a heading naming where they are, one line per file
 * with what it reproduces and, for a table, the interval methods it used.
 */
export function outputLines(written: WrittenReport, where: { tables: string; figures: string }, entries: readonly ReportEntry[] = REPORT_ENTRIES): string[] {
  return [
    `  tables      ${where.tables}/<name>.md and .csv:`,
    ...written.tables.map((stem) => {
      const methods = methodsNamed(written.intervalMethods[stem]);
      return `                ${stem.padEnd(20)} ${describeEntry(stem, "table", entries)}${methods.length > 0 ? ` (intervals: ${methods.join(" + ")})` : ""}`;
    }),
    `  figures     ${where.figures}/<name>.svg and .png:`,
    ...written.figures.map((stem) => `                ${stem.padEnd(20)} ${describeEntry(stem, "figure", entries)}`),
  ];
}
