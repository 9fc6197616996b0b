/**
 * Instruments stay labelled in every table (learner.md, "What it is not"): a report built from a data
 * set with a `builtin:` model marks its rows with ‡ in Markdown, HTML and text and notes what the mark
 * means, tables that pool runs name the instruments they pool; an `openai:` model gets neither.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compareTable } from "../../src/analysis/stats/compare.js";
import { loadDataset, type Dataset } from "../../src/analysis/load/dataset.js";
import { INSTRUMENT_MARK, instrumentNote, isInstrument, withInstrumentNote } from "../../src/analysis/tables/instruments.js";
import { powerTable } from "../../src/analysis/stats/power.js";
import { buildReport } from "../../src/report/buildReport.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import type { Table } from "../../src/analysis/tables/table.js";
import { tablePlainText } from "../../src/report/notebooks/display.js";
import { tableHtml } from "../../src/report/notebooks/html.js";
import { toCsv } from "../../src/report/tables.js";
import { markdownOf } from "../../src/report/writeReport.js";

const ROW_NOTE = `${INSTRUMENT_MARK} instrument:`;

async function dataset(models: string[]): Promise<Dataset> {
  const dir = mkdtempSync(join(tmpdir(), "s3instr-"));
  await writeSyntheticData(dir, { models, games: ["tetris", "trust"], exploreEpisodes: 6, checkpointEvery: 3, evalEpisodes: 2, stepsPerEpisode: [3, 5], training: { models, epochs: 3 }, failRate: 0 });
  return loadDataset([dir]);
}

describe("which models are instruments", () => {
  it("every builtin: spec, with options and checkpoints; nothing else", () => {
    for (const m of ["builtin:random", "builtin:heuristic", "builtin:oracle", "builtin:learner?judge=0.25", "builtin:learner@d/checkpoints/learner-1.json"]) expect(isInstrument(m), m).toBe(true);
    for (const m of ["openai:gpt-4o", "vllm:builtin-like", "mean", "builtin", ""]) expect(isInstrument(m), m).toBe(false);
  });

  it("the note: none without instruments; rows or pooled runs named otherwise", () => {
    expect(instrumentNote(["openai:gpt-4o"], "rows")).toBeNull();
    expect(instrumentNote(["builtin:learner", "openai:x"], "rows")).toMatch(/^‡ instrument: offline built-in policies .* not LLMs/);
    expect(instrumentNote(["builtin:random", "builtin:learner", "builtin:random"], "pooled")).toMatch(/^Pooled over runs that include instruments \(builtin:learner, builtin:random\)/);
    // Added once, to a copy.
    const t: Table<{ model: string }> = { name: "t", title: "T", columns: [{ key: "model", kind: "text" }], rows: [{ model: "builtin:learner" }], notes: ["first"] };
    const once = withInstrumentNote(t, []);
    expect(withInstrumentNote(once, []).notes).toEqual(once.notes);
    expect(once.notes).toHaveLength(2);
    expect(t.notes).toEqual(["first"]);
  });
});

describe("every report table marks instruments", () => {
  let mixed: Dataset;
  let llmOnly: Dataset;
  beforeAll(async () => {
    mixed = await dataset(["builtin:learner", "openai:gpt-4o"]);
    llmOnly = await dataset(["openai:gpt-4o"]);
  }, 60_000);

  it("with a builtin model: its rows carry the mark in Markdown, HTML and text, every table has the note; the CSV keeps plain names", () => {
    const report = buildReport(mixed, { B: 20 });
    for (const [name, table] of Object.entries(report.tables) as [string, Table<object>][]) {
      const md = markdownOf(name, table);
      const byRow = table.columns.some((c) => c.key === "model");
      // A model table with no rows (the synthetic data has no verified runs) has nothing to mark.
      if (byRow && table.rows.length === 0) continue;
      expect(
        table.notes.some((n) => (byRow ? n.startsWith(ROW_NOTE) : n.startsWith("Pooled over runs that include instruments (builtin:learner)"))),
        name,
      ).toBe(true);
      if (byRow && table.rows.length > 0) {
        const rows = md.split("\n").filter((l) => l.startsWith("| builtin:learner") || l.includes("| builtin:learner"));
        expect(rows.length, name).toBeGreaterThan(0);
        for (const l of rows) expect(l, name).toContain(`builtin:learner ${INSTRUMENT_MARK}`);
        for (const l of md.split("\n").filter((x) => x.includes("openai:gpt-4o"))) expect(l, name).not.toContain(INSTRUMENT_MARK);
        expect(tableHtml(table), name).toContain(`builtin:learner ${INSTRUMENT_MARK}`);
        expect(tablePlainText(table), name).toContain(`builtin:learner ${INSTRUMENT_MARK}`);
        expect(toCsv(table), name).not.toContain(INSTRUMENT_MARK);
      }
    }
  });

  it("compare and power tables name the instruments they pool", () => {
    expect(compareTable(mixed, { a: { model: "builtin:learner" }, b: { model: "openai:gpt-4o" }, metrics: ["avg"], B: 20, seed: 0 }).notes.at(-1)).toMatch(
      /^Pooled over runs that include instruments \(builtin:learner\)/,
    );
    expect(powerTable(mixed, { metrics: ["avg"], sims: 20 }).notes.at(-1)).toMatch(/^Pooled over runs that include instruments \(builtin:learner\)/);
  });

  it("an openai model alone: no mark and no note anywhere", () => {
    const report = buildReport(llmOnly, { B: 20 });
    for (const [name, table] of Object.entries(report.tables) as [string, Table<object>][]) {
      expect(markdownOf(name, table), name).not.toContain(INSTRUMENT_MARK);
      expect(
        table.notes.some((n) => n.includes("instrument")),
        name,
      ).toBe(false);
    }
  });
});
