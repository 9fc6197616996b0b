/**
 * The repository's docs stand on their own: a user's clone has no project notes, so no page of docs/
 * and not the README may send a reader there; the metric definitions live in docs/metrics.md; and
 * the README's command table has a row for every command the CLI dispatches.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? markdownUnder(p) : name.endsWith(".md") ? [p] : [];
  });
}

/** `file:line: text` for every line of the docs and the README holding one of `needles` (case-insensitive). */
export function outsideReferences(files: readonly string[], needles: readonly string[] = ["project notes", "../shared"]): string[] {
  const hits: string[] = [];
  for (const f of files) {
    readFileSync(f, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (needles.some((n) => line.toLowerCase().includes(n))) hits.push(`${f}:${i + 1}: ${line.trim()}`);
      });
  }
  return hits;
}

describe("docs point only inside the repository", () => {
  const files = [...markdownUnder(join(ROOT, "docs")), join(ROOT, "README.md")];

  it("no page of docs/ nor the README mentions the project notes or ../shared", () => {
    expect(files.length).toBeGreaterThan(5);
    expect(outsideReferences(files)).toEqual([]);
  });

  it("the check finds such a line", () => {
    const tmp = join(import.meta.dirname, "..", "fixtures", "docs-outside-ref.md");
    expect(outsideReferences([tmp])).toHaveLength(2);
  });

  it("docs/metrics.md defines the metrics the tables print", () => {
    const text = readFileSync(join(ROOT, "docs", "metrics.md"), "utf8");
    for (const m of ["Avg", "Max", "AUC+", "NABA", "dNABA", "gain_vs_y0", "gain_vs_none", "Agree", "Over", "Under", "NMAE", "rho_agree", "tertile_gap", "null check", "estimand"]) {
      expect(text.includes(m), m).toBe(true);
    }
  });

  it("the README's command table has a row for every command of src/cli/main.ts", () => {
    const main = readFileSync(join(ROOT, "src", "cli", "main.ts"), "utf8");
    const commands = [...main.matchAll(/^\s+"?([a-z][a-z-]*)"?: \{ about:/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(10);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const c of commands) expect(readme, c).toContain(`| \`${c}\` |`);
  });
});
