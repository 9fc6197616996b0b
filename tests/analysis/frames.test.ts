/** Data frames for ad hoc work: plain columns and danfojs DataFrames of a hand-made data set. */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { booleanColumn, loadColumns, loadFrames, numberColumn, STEP_COLUMNS, STEP_TEXT_COLUMNS, textColumn } from "../../src/analysis/load/frames.js";
import { StepRecord } from "../../src/logs/schema.js";
import { fastCheckOf } from "../../src/util/zodFastCheck.js";
import { curveRecords, exploreRecords, tempDir, writeRun } from "./helpers.js";

/** JSON.parse's message for a text (the torn-line warning quotes it). */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  return "";
}

const H = { run_id: "g.history.m", model: "m", game: "g", pathway: "history" };

function fixture(): string {
  const dir = tempDir();
  const c = curveRecords(H, [
    [0, [1, 3]],
    [3, null],
    [6, [4]],
  ]);
  const e = exploreRecords(H, {
    1: [
      [1, 1],
      [null, 0],
    ],
    2: [[0, 1]],
  });
  writeRun(dir, H, { checkpoints: c.checkpoints, episodes: [...c.episodes, ...e.episodes], steps: e.steps });
  return dir;
}

describe("loadColumns", () => {
  it("gives plain columns without step text by default; nulls in numeric columns as NaN", async () => {
    const cols = await loadColumns(fixture());
    expect(cols.steps.self_score).toEqual([1, Number.NaN, 0]);
    expect(cols.steps.observation).toBeUndefined();
    expect(cols.episodes.status).toEqual(["ok", "ok", "failed", "ok", "ok", "ok"]);
    expect(cols.checkpoints.mean).toEqual([2, Number.NaN, 4]);
    // runs: y0 = 2, curve 2, -, 4 -> Avg 3, Max 4, AUC+ = 6 * (0 + 2) / 2 = 6, NABA 3 ; Agree: (1,1) agree, (0,1) under -> 1/2
    expect(cols.runs.run_id).toEqual(["g.history.m"]);
    expect([cols.runs.y0?.[0], cols.runs.avg?.[0], cols.runs.max?.[0], cols.runs.auc_plus?.[0], cols.runs.naba?.[0]]).toEqual([2, 3, 4, 6, 3]);
    expect(cols.runs.agree?.[0]).toBe(0.5);
    expect(cols.runs.n_unscored?.[0]).toBe(1);
  });

  it("reports a torn last line once; a torn line mid-file is the loader's warning naming file:line; a run with a line that breaks the schema is left out of every frame, named, as the loader leaves it out", async () => {
    const dir = fixture();
    const steps = join(dir, "runs", H.run_id, "steps.jsonl");
    const torn = '{"run_id":"g.history.m","mod';
    appendFileSync(steps, torn);
    const warnings: string[] = [];
    const cols = await loadColumns(dir, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([`${steps}:4: torn last line ignored (invalid JSON (${jsonError(torn)}))`]);
    expect(cols.steps.self_score).toEqual([1, Number.NaN, 0]);
    // Line 4 is now mid-file (damaged, skipped with a warning), and line 5 parses but lacks every field
    // but run_id. A second run beside it is computed as usual.
    appendFileSync(steps, '\n{"run_id":"g.history.m"}\n');
    const H2 = { ...H, run_id: "g.history.m2", model: "m2" };
    const e2 = exploreRecords(H2, { 1: [[0, 0]] });
    writeRun(dir, H2, { checkpoints: [], episodes: e2.episodes, steps: e2.steps });
    const loaded = await loadDataset(dir);
    const leftOut = loaded.warnings.find((w) => w.startsWith(`left out run ${H.run_id}: `));
    const prefix = `left out run ${H.run_id}: ${steps}:5: field 'model': `;
    expect(leftOut?.slice(0, prefix.length)).toBe(prefix);
    const warnings2: string[] = [];
    const cols2 = await loadColumns(dir, { onWarning: (w) => warnings2.push(w) });
    expect(warnings2).toEqual([
      `${steps}:4: damaged line left out (invalid JSON (${jsonError(torn)}); a write cut short, e.g. on a full disk): rerunning the run's command moves it to steps.jsonl.damaged and plays its episode again`,
      leftOut,
    ]);
    expect(loaded.runs.map((r) => r.run_id)).toEqual([H2.run_id]);
    // Not one row of the left-out run in any frame, though its first lines were read before the bad one.
    expect(cols2.runs.run_id).toEqual([H2.run_id]);
    expect(cols2.steps.run_id).toEqual([H2.run_id]);
    expect(cols2.steps.self_score).toEqual([0]);
    expect(cols2.episodes.run_id).toEqual([H2.run_id]);
    expect(cols2.checkpoints.run_id).toEqual([]);
  });

  it("keeps the text columns when asked", async () => {
    const cols = await loadColumns(fixture(), { text: true });
    expect(cols.steps.observation).toEqual(["board", "board", "board"]);
  });
});

describe("loadFrames", () => {
  it("wraps the columns in danfojs DataFrames", async () => {
    const f = await loadFrames(fixture());
    // Every non-text field of the step schema, optional ones included (20 required + 9 optional: `view` of views.md is the 9th).
    expect(f.steps.shape).toEqual([3, 35]); // 35 columns since the run-wide shuffle names its source episode; 34 since the hybrid pathway's retrieved_steps; 33 since the judge axis's experience_score fields
    expect(f.episodes.shape[0]).toBe(6);
    expect(f.checkpoints.shape[0]).toBe(3);
    expect(f.runs.shape[0]).toBe(1);
    expect(f.runs.columns).toContain("naba");
  });
});

/** Steps as a history run and a memory run write them, plus a field another tool added on one line. */
function loggedFields(): string {
  const dir = tempDir();
  const e = exploreRecords(H, {
    1: [
      [1, 1],
      [null, 0],
    ],
    2: [[0, 1]],
  });
  const steps = (e.steps as Record<string, unknown>[]).map((s, i) => ({
    ...s,
    cached: i === 0,
    finish_reason: i === 2 ? null : "stop",
    tokens_cached: i === 1 ? 128 : null,
    history_keep: i === 0 ? [] : [3, 0],
    ...(i === 1 ? { custom_x: "v" } : {}),
  }));
  writeRun(dir, H, { episodes: e.episodes, steps });
  const M = { ...H, run_id: "g.memory.m", pathway: "memory" };
  const m = exploreRecords(M, { 1: [[1, 1]] });
  writeRun(dir, M, { episodes: m.episodes, steps: (m.steps as Record<string, unknown>[]).map((s) => ({ ...s, memory_version: 4 })) });
  return dir;
}

describe("every logged field", () => {
  it("the step columns are exactly the step schema's fields (text ones apart), so a new field cannot be forgotten", () => {
    expect([...STEP_COLUMNS, ...STEP_TEXT_COLUMNS].sort()).toEqual(Object.keys(StepRecord.shape).sort());
  });

  it("the schema's optional fields are columns (null/NaN where a run did not write them); extras follow", async () => {
    const cols = await loadColumns(loggedFields());
    expect(Object.keys(cols.steps)).toEqual([...STEP_COLUMNS, "custom_x"]);
    expect(cols.steps.run_id).toEqual(["g.history.m", "g.history.m", "g.history.m", "g.memory.m"]);
    expect(cols.steps.cached).toEqual([true, false, false, null]);
    expect(cols.steps.finish_reason).toEqual(["stop", "stop", null, null]);
    expect(cols.steps.tokens_cached).toEqual([Number.NaN, 128, Number.NaN, Number.NaN]);
    expect(cols.steps.history_keep).toEqual(["[]", "[3,0]", "[3,0]", null]);
    expect(cols.steps.memory_version).toEqual([Number.NaN, Number.NaN, Number.NaN, 4]);
    expect(cols.steps.custom_x).toEqual([null, "v", null, null]);
  });

  it("a nested field's cell is what zod's copy of the line gives (declared keys, the schema's order), though the loader hands the line as written", async () => {
    const dir = tempDir();
    // Names of two characters or more: the loader's compiled check passes the line without zod then
    // (it leaves one-character names under a length floor to zod), so the line is handed on as written.
    const e = exploreRecords({ run_id: "game.history.model", model: "model", game: "game", pathway: "history" }, { 1: [[1, 1]] });
    // Written by another tool: the retrieved snippet's keys reversed, one key the schema does not
    // declare inside it, and an undeclared top-level field written before the declared ones.
    const step = { custom_first: { b: 1, a: 2 }, ...(e.steps[0] as Record<string, unknown>), retrieved_steps: [{ step: 4, note: "x", episode: 2 }] };
    writeRun(dir, { run_id: "game.history.model", model: "model", game: "game", pathway: "history" }, { episodes: e.episodes, steps: [step] });
    expect(fastCheckOf(StepRecord)!(step)).toBe(true);
    const cols = await loadColumns(dir);
    // Hand-written: zod keeps episode then step (the schema's order) and drops `note`; an undeclared
    // top-level value is kept whole, as written.
    expect(cols.steps.retrieved_steps).toEqual(['[{"episode":2,"step":4}]']);
    expect(cols.steps.custom_first).toEqual(['{"b":1,"a":2}']);
    expect(Object.keys(cols.steps).slice(-1)).toEqual(["custom_first"]);
  });
});

describe("typed column accessors", () => {
  it("read plain columns and danfojs frames alike, with NaN / null for missing values", async () => {
    const dir = loggedFields();
    const cols = await loadColumns(dir);
    const frames = await loadFrames(dir);
    for (const src of [cols.steps, frames.steps]) {
      expect(numberColumn(src, "reward")).toEqual([1, 0, 1, 1]);
      expect(numberColumn(src, "self_score")).toEqual([1, Number.NaN, 0, 1]);
      expect(textColumn(src, "finish_reason")).toEqual(["stop", "stop", null, null]);
      expect(booleanColumn(src, "valid")).toEqual([true, true, true, true]);
    }
  });

  it("name the column and the ones that exist, or the row whose value has the wrong type", async () => {
    const cols = await loadColumns(loggedFields());
    expect(() => numberColumn(cols.steps, "rewards")).toThrow(/no column 'rewards': the columns are run_id, model, game/);
    expect(() => numberColumn(cols.steps, "model")).toThrow(`column 'model' is not numeric: row 0 holds "m"`);
    expect(() => textColumn(cols.steps, "reward")).toThrow("column 'reward' is not text: row 0 holds 1");
    expect(() => booleanColumn({ x: [true, 1] }, "x")).toThrow("column 'x' is not boolean: row 1 holds 1");
  });
});
