/**
 * Instruments: the offline built-in policies (`builtin:*`: random, heuristic, perfect-judge, ceiling, learner) are
 * references and positive controls, not LLMs, and no table of them is a claim about LLMs
 * (learner.md, "What it is not"). Every report table marks them: a `‡` after the model's name in
 * Markdown, HTML and text (the CSV keeps the plain name: it is the join key, and its `builtin:`
 * scheme names it), and a note under any table whose rows or pooled runs include one.
 */
import type { Table } from "./table.js";

/** The mark after an instrument's model name. */
export const INSTRUMENT_MARK = "‡";

/** Whether a model spec is an instrument: any `builtin:` policy, options and checkpoints included. */
export function isInstrument(model: string): boolean {
  return model.startsWith("builtin:");
}

/** The note for a table: its instrument rows (`rows`) or the instruments among the runs it pools (`pooled`). */
export function instrumentNote(models: Iterable<string>, how: "rows" | "pooled"): string | null {
  const found = [...new Set([...models].filter(isInstrument))].sort();
  if (found.length === 0) return null;
  const what = "offline built-in policies (references and positive controls), not LLMs: no claim about LLMs";
  return how === "rows" ? `${INSTRUMENT_MARK} instrument: ${what}.` : `Pooled over runs that include instruments (${found.join(", ")}): ${what}.`;
}

/**
 * The table with its instrument note added (after the existing notes; a copy, the input is left as
 * it is). Rows are read from the `model` column when the table has one; otherwise `pooledModels`
 * names the models of the runs the table pools.
 */
export function withInstrumentNote<R extends object>(table: Table<R>, pooledModels: Iterable<string>): Table<R> {
  const byRow = table.columns.some((c) => c.key === "model");
  const models = byRow ? table.rows.map((r) => String((r as Record<string, unknown>).model ?? "")) : [...pooledModels];
  const note = instrumentNote(models, byRow ? "rows" : "pooled");
  return note && !table.notes.includes(note) ? { ...table, notes: [...table.notes, note] } : table;
}
