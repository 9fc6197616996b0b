/**
 * report.json is citable on its own: every table's rows with their intervals (the same numbers as
 * the CSV), the provenance of the kit that computed them and of every run; and the null check of a
 * study without a none control (the README's `--pathways history,memory`) says "not testable" in
 * the terminal, report.json and the table's notes, with a note naming the missing control.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { reportCommand } from "../../src/cli/report/report.js";
import { runCommand } from "../../src/cli/run/run.js";

let out = "";
let stdout = "";
let json: Record<string, any>;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), "s3rjson-"));
  const data = join(root, "data");
  out = join(root, "figures");
  const quiet = [vi.spyOn(process.stderr, "write").mockImplementation(() => true)];
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((stdout += String(s)), true));
  try {
    const run = [
      "--models",
      "builtin:heuristic",
      "--games",
      "snake",
      "--pathways",
      "history,memory",
      "--data",
      data,
      "--explore-episodes",
      "3",
      "--checkpoint-every",
      "3",
      "--eval-episodes",
      "3",
      "--max-steps",
      "6",
      "--progress",
      "off",
    ];
    expect(await withExitCode("run", () => runCommand(run))).toBe(0);
    stdout = "";
    expect(await withExitCode("report", () => reportCommand(["--data", data, "--out", out, "--bootstrap", "50"]))).toBe(0);
  } finally {
    o.mockRestore();
    for (const q of quiet) q.mockRestore();
  }
  json = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
}, 120_000);

/** The CSV's rows as objects (no quoted commas in these tables' cells). */
function csv(name: string): Record<string, string>[] {
  const [head, ...rows] = readFileSync(join(out, "tables", `${name}.csv`), "utf8")
    .trimEnd()
    .split("\n");
  const keys = head!.split(",");
  return rows.map((r) => Object.fromEntries(r.split(",").map((v, i) => [keys[i]!, v])));
}

describe("report.json carries the results", () => {
  it("every table the report wrote, with rows, columns and notes", () => {
    const written = (json.files as string[]).filter((f) => f.startsWith("tables/") && f.endsWith(".csv")).map((f) => f.slice(7, -4));
    expect(Object.keys(json.results).sort()).toEqual(written.sort());
    const main = json.results.main_results;
    expect(main.rows).toHaveLength(2);
    expect(main.notes[0]).toBe(json.interval_methods.main_results);
  });

  it("the same numbers as the CSV, interval and n included", () => {
    const rows = csv("main_results");
    for (const r of json.results.main_results.rows) {
      const c = rows.find((x) => x.pathway === r.pathway)!;
      expect(Number(c.avg)).toBe(r.avg.point);
      expect(Number(c.avg_lo)).toBe(r.avg.lo);
      expect(Number(c.avg_hi)).toBe(r.avg.hi);
      expect(Number(c.avg_n)).toBe(r.avg.n);
      expect(r.avg.lo).toBeLessThanOrEqual(r.avg.hi);
    }
  });

  it("names the kit that computed it and each run's provenance", () => {
    const p = json.provenance;
    expect(p.node_version).toBe(process.version);
    expect(typeof p.kit_version).toBe("string");
    expect(p.runs).toHaveLength(2);
    for (const r of p.runs) {
      expect(r.run_id).toMatch(/^snake__(history|memory)__builtin-heuristic/);
      expect([r.provenance.endpoint, r.provenance.api_key_env, r.provenance.concurrency]).toEqual(["builtin", null, null]);
    }
  });
});

describe("the null check of a study without a none run", () => {
  it("is not testable, in the terminal, report.json and the table notes", () => {
    expect(json.null_check.intervals).toBeLessThan(10);
    expect([json.null_check.pass, json.null_check.testable]).toEqual([null, false]);
    expect(json.null_check.line).toMatch(/^Null check not testable \(\d intervals?\)/);
    expect(stdout).toContain(json.null_check.line);
    expect(stdout).not.toMatch(/null check passed/i);
    expect(readFileSync(join(out, "tables", "main_results.md"), "utf8")).toContain(json.null_check.line);
  });

  it("the empty gain_vs_none cells have a note naming the missing none run", () => {
    for (const r of csv("main_results")) expect(r.gain_vs_none).toBe("");
    const note = (json.results.main_results.notes as string[]).find((n) => n.startsWith("No gain_vs_none where its control is missing"));
    expect(note).toContain("builtin:heuristic / snake / history");
    expect(note).toContain("builtin:heuristic / snake / memory");
  });
});
