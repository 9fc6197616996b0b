/**
 * Multiplicity across a table's p-values (metrics.md, "Multiplicity"): a table that prints many
 * p-values will show some below 0.05 by chance alone, so beside every raw p column it prints
 * Holm's step-down adjustment (controls the family-wise error: the chance of ANY false rejection)
 * and Benjamini-Hochberg's step-up adjustment (controls the false discovery rate: the expected share
 * of false rejections among the rejected). The family is every p-value the table prints, all its p
 * columns and rows together; missing p-values do not count.
 */
import type { Column, Table } from "../tables/table.js";

/** Holm's step-down adjusted p-values (nulls stay null and do not count in the family). */
export function holmAdjust(ps: readonly (number | null)[]): (number | null)[] {
  const idx = ps
    .map((p, i) => [p, i] as const)
    .filter((x): x is readonly [number, number] => x[0] !== null)
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const m = idx.length;
  const out: (number | null)[] = ps.map(() => null);
  let running = 0;
  idx.forEach(([p, i], j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    out[i] = running;
  });
  return out;
}

/** Benjamini-Hochberg step-up adjusted p-values (q-values; nulls stay null and do not count). */
export function bhAdjust(ps: readonly (number | null)[]): (number | null)[] {
  const idx = ps
    .map((p, i) => [p, i] as const)
    .filter((x): x is readonly [number, number] => x[0] !== null)
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const m = idx.length;
  const out: (number | null)[] = ps.map(() => null);
  let running = 1;
  for (let j = m - 1; j >= 0; j--) {
    const [p, i] = idx[j] as readonly [number, number];
    running = Math.min(running, Math.min(1, (m * p) / (j + 1)));
    out[i] = running;
  }
  return out;
}

/** Suffixes of the adjusted columns. */
export const HOLM_SUFFIX = "_holm";
export const BH_SUFFIX = "_bh";

/** The raw p columns of a table: kind `p`, not themselves an adjustment. */
export function rawPColumns(columns: readonly Column[]): string[] {
  return columns.filter((c) => c.kind === "p" && !c.key.endsWith(HOLM_SUFFIX) && !c.key.endsWith(BH_SUFFIX)).map((c) => c.key);
}

/**
 * The table with `<p>_holm` and `<p>_bh` beside each raw p column, adjusted over the family of every
 * p-value the table prints, and a note naming that family. A table with no p-value, or whose p
 * columns already have their adjustment (compare's p_holm), is returned as is.
 */
export function withAdjustedP<R extends object>(table: Table<R>): Table<R> {
  const keys = rawPColumns(table.columns);
  if (keys.length === 0) return table;
  if (keys.some((k) => table.columns.some((c) => c.key === `${k}${HOLM_SUFFIX}` || c.key === "p_holm"))) return table;
  const family: { row: number; key: string; p: number | null }[] = [];
  table.rows.forEach((r, row) => {
    for (const key of keys) {
      const v = (r as Record<string, unknown>)[key];
      family.push({ row, key, p: typeof v === "number" && Number.isFinite(v) ? v : null });
    }
  });
  const holm = holmAdjust(family.map((f) => f.p));
  const bh = bhAdjust(family.map((f) => f.p));
  const rows = table.rows.map((r) => ({ ...r }) as Record<string, unknown>);
  family.forEach((f, i) => {
    const row = rows[f.row] as Record<string, unknown>;
    row[`${f.key}${HOLM_SUFFIX}`] = holm[i];
    row[`${f.key}${BH_SUFFIX}`] = bh[i];
  });
  const columns: Column[] = [];
  for (const c of table.columns) {
    columns.push(c);
    if (keys.includes(c.key)) columns.push({ key: `${c.key}${HOLM_SUFFIX}`, kind: "p" }, { key: `${c.key}${BH_SUFFIX}`, kind: "p" });
  }
  const m = family.filter((f) => f.p !== null).length;
  const note = `Multiplicity: the family is every p-value this table prints (${keys.join(", ")}, over all its rows: ${m} p-value${m === 1 ? "" : "s"}); the ${HOLM_SUFFIX} column beside a p is Holm's step-down adjustment (family-wise error), the ${BH_SUFFIX} column Benjamini-Hochberg's (false discovery rate). Read a raw p below 0.05 as evidence only when its adjusted p is too.`;
  return { ...table, columns, rows: rows as R[], notes: [...table.notes, note] };
}
