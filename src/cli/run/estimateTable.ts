/**
 * What `s3gym run ... --estimate` prints (runner/monitor/estimate.ts computes it): one line per model x game
 * x pathway, a total, the cached share per pathway beside its physical limit, and the plain words
 * that this is an estimate.
 */
import type { EstimateRow } from "../../runner/monitor/estimate.js";

/** Tokens as a person reads them: 950, 12.3k, 4.56M. */
export function formatTokens(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** Dollars: cents from $1, two significant digits below (a tiny schedule costs fractions of a cent). */
const usd = (x: number | null): string => (x === null ? "-" : x >= 1 || x === 0 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`);
const pct = (part: number, whole: number): string => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : "-");

/** Sums of rows; the dollars sum the rows that have a price (null when none has). */
export function totalOf(rows: readonly EstimateRow[]): Omit<EstimateRow, "model" | "game" | "pathway" | "incomplete"> {
  const sum = (f: (r: EstimateRow) => number) => rows.reduce((n, r) => n + f(r), 0);
  const sumUsd = (f: (r: EstimateRow) => number | null) => (rows.every((r) => f(r) === null) ? null : rows.reduce((n, r) => n + (f(r) ?? 0), 0));
  return {
    calls: sum((r) => r.calls),
    summaryCalls: sum((r) => r.summaryCalls),
    inputTokens: sum((r) => r.inputTokens),
    cachedTokens: sum((r) => r.cachedTokens),
    reusableTokens: sum((r) => r.reusableTokens),
    outputCapTokens: sum((r) => r.outputCapTokens),
    inputListUsd: sumUsd((r) => r.inputListUsd),
    inputCachedUsd: sumUsd((r) => r.inputCachedUsd),
    outputCapUsd: sumUsd((r) => r.outputCapUsd),
  };
}

const HEADER = ["model", "game", "pathway", "calls", "input tokens", "cached", "limit", "output cap", "$ input", "$ input cached", "$ output at cap"];

function cells(label: [string, string, string], r: ReturnType<typeof totalOf>): string[] {
  return [
    ...label,
    String(r.calls),
    formatTokens(r.inputTokens),
    pct(r.cachedTokens, r.inputTokens),
    pct(r.reusableTokens, r.inputTokens),
    formatTokens(r.outputCapTokens),
    usd(r.inputListUsd),
    usd(r.inputCachedUsd),
    usd(r.outputCapUsd),
  ];
}

/** The whole printout, lines joined by "\n" (ends with a newline). */
export function formatEstimate(rows: readonly EstimateRow[], o: { tokenizer: string; policy: string; skipped: readonly string[] }): string {
  const table = [HEADER, ...rows.map((r) => cells([r.model, r.game, r.pathway], r)), cells(["total", "", ""], totalOf(rows))];
  const widths = HEADER.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  const out: string[] = [
    `s3gym run --estimate: ${rows.length} run${rows.length === 1 ? "" : "s"} played in process by ${o.policy}, no endpoint called; prompt tokens counted with ${o.tokenizer}`,
    "",
    ...table.map(line),
    "",
  ];
  const pathways = [...new Set(rows.map((r) => r.pathway))];
  out.push("prefix cache, per pathway (cached: a simulated 16-token-block cache per run; limit: 1 - new tokens per call / prompt tokens):");
  for (const p of pathways) {
    const t = totalOf(rows.filter((r) => r.pathway === p));
    out.push(`  ${p.padEnd(10)} cached ${pct(t.cachedTokens, t.inputTokens).padStart(6)} of ${formatTokens(t.inputTokens)} input tokens, limit ${pct(t.reusableTokens, t.inputTokens)}`);
  }
  for (const r of rows) if (r.incomplete) out.push(`note: ${r.model} ${r.game} ${r.pathway} did not complete under ${o.policy} (${r.incomplete}): its figures are partial`);
  const unpriced = [...new Set(rows.filter((r) => r.inputListUsd === null).map((r) => r.model))];
  if (unpriced.length > 0) {
    out.push(
      `note: no price for ${unpriced.join(", ")} (add "price": {"input", "cached_input", "output"} in dollars per million tokens to its models-file entry); the total's dollars cover the other models only`,
    );
  }
  for (const s of o.skipped) out.push(`note: ${s}`);
  out.push(
    "",
    `This is an estimate. Real replies differ from the heuristic's (a few dozen tokens each): longer replies make later prompts longer (History quotes every earlier reply) and`,
    `cost output tokens; the output column prices every call at its reply cap (an upper bound). Dollars use the models file's prices (per million tokens; cached input at`,
    `cached_input where given, else the input price). The served model's tokenizer may count differently (the preflight's /tokenize ratio says by how much).`,
  );
  return `${out.join("\n")}\n`;
}
