#!/usr/bin/env node
/**
 * scripts/check-intervals.mjs FIGURES_DIR: reads every `<FIGURES_DIR>/tables/*.csv` and counts the
 * intervals a reviewer would reject (issue 24): an end that is not a finite number or beyond 1e6 in
 * absolute value, a lower end above the upper, a correlation interval outside [-1, 1], a rate
 * interval outside [0, 1], an AUC+ / NABA interval below 0. Prints the counts per table and exits 1
 * when any is found. Columns: `<key>_lo` / `<key>_hi` (and compare's `lo` / `hi`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node scripts/check-intervals.mjs FIGURES_DIR (the folder holding tables/)\n");
  process.exit(2);
}
const CORRELATION = /^(rho_|pearson_|spearman_)/;
const RATE = /^(agree|nmae|over|under|solved|fr)$|_rate$/;
const NONNEGATIVE = /^(auc_plus|naba|regression)$/;
const EPS = 1e-9;

/** One CSV line's fields (quoted fields with doubled quotes allowed). */
function fields(line) {
  const out = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") out.push(cur), (cur = "");
    else cur += c;
  }
  out.push(cur);
  return out;
}

const tablesDir = join(dir, "tables");
let files;
try {
  files = readdirSync(tablesDir)
    .filter((f) => f.endsWith(".csv"))
    .sort();
} catch {
  process.stderr.write(`check-intervals: no tables/ under ${dir}\n`);
  process.exit(2);
}
let bad = 0;
let total = 0;
for (const f of files) {
  const lines = readFileSync(join(tablesDir, f), "utf8")
    .split("\n")
    .filter((l) => l !== "");
  if (lines.length === 0) continue;
  const head = fields(lines[0]);
  const pairs = [];
  head.forEach((h, i) => {
    if (h.endsWith("_lo")) {
      const key = h.slice(0, -3);
      const j = head.indexOf(`${key}_hi`);
      if (j >= 0) pairs.push({ key, lo: i, hi: j });
    } else if (h === "lo" && head.includes("hi")) pairs.push({ key: "diff", lo: i, hi: head.indexOf("hi") });
  });
  const problems = [];
  let n = 0;
  for (const line of lines.slice(1)) {
    const row = fields(line);
    for (const p of pairs) {
      const [a, b] = [row[p.lo] ?? "", row[p.hi] ?? ""];
      if (a === "" && b === "") continue;
      n++;
      const lo = Number(a);
      const hi = Number(b);
      const why = [];
      if (a === "" || b === "" || !Number.isFinite(lo) || !Number.isFinite(hi)) why.push("not finite");
      else {
        if (Math.abs(lo) > 1e6 || Math.abs(hi) > 1e6) why.push("beyond 1e6");
        if (lo > hi) why.push("lo > hi");
        if (CORRELATION.test(p.key) && (lo < -1 - EPS || hi > 1 + EPS)) why.push("correlation outside [-1, 1]");
        if (RATE.test(p.key) && (lo < -EPS || hi > 1 + EPS)) why.push("rate outside [0, 1]");
        if (NONNEGATIVE.test(p.key) && lo < -EPS) why.push("below 0");
      }
      if (why.length > 0) problems.push(`${p.key} [${a}, ${b}]: ${why.join(", ")}`);
    }
  }
  total += n;
  bad += problems.length;
  process.stdout.write(
    `${f.padEnd(28)} ${String(n).padStart(5)} intervals, ${problems.length} bad${problems.length > 0 ? `: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? " ..." : ""}` : ""}\n`,
  );
}
process.stdout.write(`check-intervals: ${total} intervals in ${files.length} tables, ${bad} bad\n`);
process.exit(bad > 0 ? 1 : 0);
