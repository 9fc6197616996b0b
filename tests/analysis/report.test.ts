/**
 * `s3gym report` end to end on a small synthetic data set in two shard directories: every file, the
 * exact CSV columns of the issue, the bootstrap line under every Markdown table, reproducible digits,
 * the completeness rule, and one-line argument errors with exit code 2.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import type { SyntheticOptions } from "../../src/logs/syntheticRuns.js";
import { reportCommand } from "../../src/cli/report/report.js";
import { withExitCode } from "../../src/cli/main.js";
import { REPORT_CSV_COLUMNS as COLUMNS, tempDir } from "./helpers.js";

const SMALL: SyntheticOptions = {
  seed: 1,
  pathways: ["history", "memory"],
  exploreEpisodes: 9,
  checkpointEvery: 3,
  evalEpisodes: 3,
  stepsPerEpisode: [3, 6],
  failRate: 0.1,
};

let main: string;
let shard: string;

/** Runs reportCommand with stdout/stderr captured. */
async function run(argv: string[]): Promise<{ rc: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  try {
    const rc = await withExitCode("report", () => reportCommand(argv));
    return { rc, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeAll(async () => {
  main = tempDir();
  shard = tempDir();
  await writeSyntheticData(main, { ...SMALL, models: ["a", "b"], games: ["snake", "trust"], training: { models: ["t"], epochs: 4 } });
  // Model c only on snake: incomplete. Its shard also ends with a torn line.
  await writeSyntheticData(shard, { ...SMALL, models: ["c"], games: ["snake"], tornLastLine: true });
});

afterEach(() => vi.restoreAllMocks());

describe("report on two shard directories", () => {
  let out: string;
  let result: { rc: number; out: string; err: string };
  beforeAll(async () => {
    out = tempDir();
    result = await run(["--data", main, "--data", shard, "--out", out, "--bootstrap", "50"]);
  });

  it("exits 0, reports the torn line on stderr and a summary on stdout", () => {
    expect(result.rc).toBe(0);
    expect(result.err).toMatch(/warning: .*steps\.jsonl:\d+: torn last line ignored/);
    expect(result.out).toMatch(/B = 50, seed = 0/);
  });

  it("writes every table as CSV with exactly the issue's columns, and as Markdown", () => {
    for (const name of [...Object.keys(COLUMNS), "positive_rates"]) {
      expect(existsSync(join(out, "tables", `${name}.csv`)), name).toBe(true);
      expect(existsSync(join(out, "tables", `${name}.md`)), name).toBe(true);
    }
    for (const [name, header] of Object.entries(COLUMNS)) {
      const lines = readFileSync(join(out, "tables", `${name}.csv`), "utf8")
        .trimEnd()
        .split("\n");
      expect(lines[0], name).toBe(header);
      expect(lines.length, name).toBeGreaterThan(1);
      for (const l of lines) expect(l.split(",").length, `${name}: ${l}`).toBe(header.split(",").length);
    }
  });

  it("prints missing values as empty cells, never NaN/null/undefined; CSV numbers at full precision", () => {
    for (const f of readdirSync(join(out, "tables"))) {
      const text = readFileSync(join(out, "tables", f), "utf8");
      // Cells only: a note may speak of the stochastic nulls or the null check in words.
      const cells = text
        .split("\n")
        .filter((l) => l.startsWith("|") || f.endsWith(".csv"))
        .flatMap((l) => l.split(/[|,]/).map((c) => c.trim()));
      for (const c of cells) expect(c, f).not.toMatch(/^(NaN|null|undefined|-?Infinity)$|NaN|undefined|Infinity/);
    }
    const main = readFileSync(join(out, "tables", "main_results.csv"), "utf8").split("\n")[1] ?? "";
    expect(main.split(",")[4]).toMatch(/^\d+$/); // n_seeds
    expect(Number.isFinite(Number(main.split(",")[5]))).toBe(true); // avg, unrounded
    const md = readFileSync(join(out, "tables", "main_results.md"), "utf8");
    expect(md).toMatch(/\| -?\d+\.\d{3} \[/); // Markdown rounds to 3 decimals
  });

  it("prints the method, B and seed under every Markdown table", () => {
    for (const name of [...Object.keys(COLUMNS), "positive_rates"]) {
      const md = readFileSync(join(out, "tables", `${name}.md`), "utf8");
      expect(md, name).toMatch(/Intervals: 95% [^\n]*bootstrap[^\n]*, B = 50, seed = 0/);
    }
    // 3 evaluation seeds: fewer than the coverage table supports, so the interval says n=3 beside it.
    expect(readFileSync(join(out, "tables", "main_results.md"), "utf8")).toMatch(/\| \d+\.\d{3} \[-?\d+\.\d{3}, -?\d+\.\d{3}\] n=3 \|/);
  });

  it("reports every model and flags the incomplete one", () => {
    const csv = readFileSync(join(out, "tables", "main_results.csv"), "utf8");
    expect(csv).toMatch(/^c,snake,history,/m);
    const md = readFileSync(join(out, "tables", "main_results.md"), "utf8");
    expect(md).toMatch(/^\| c † \| snake \|/m);
    expect(md).toMatch(/c \(missing: trust\)/);
  });

  it("renders the figures as SVG and PNG", () => {
    for (const fig of ["curves_snake", "curves_trust", "training", "calibration", "coupling"]) {
      const svg = readFileSync(join(out, `${fig}.svg`), "utf8");
      expect(svg.startsWith("<svg"), fig).toBe(true);
      const png = readFileSync(join(out, `${fig}.png`));
      expect([...png.subarray(0, 4)], fig).toEqual([0x89, 0x50, 0x4e, 0x47]);
    }
    const meta = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { B: number; seed: number; files: string[] };
    expect([meta.B, meta.seed]).toEqual([50, 0]);
    // The method per table, as its first note names it (issue 24): curves use the percentile interval.
    const methods = (meta as unknown as { interval_methods: Record<string, string> }).interval_methods;
    expect(methods.main_results).toMatch(/^Intervals: 95% intervals by percentile bootstrap \(\d+ intervals\)/);
    expect(meta.files).toContain("tables/main_results.csv");
  });

  it("gives the same digits for the same seed (comma-list --data), other digits for another seed", async () => {
    const again = tempDir();
    const other = tempDir();
    expect((await run([`--data=${main},${shard}`, "--out", again, "--bootstrap", "50", "--seed", "0"])).rc).toBe(0);
    expect((await run(["--data", main, "--data", shard, "--out", other, "--bootstrap", "50", "--seed", "1"])).rc).toBe(0);
    for (const name of Object.keys(COLUMNS)) {
      expect(readFileSync(join(again, "tables", `${name}.csv`), "utf8"), name).toBe(readFileSync(join(out, "tables", `${name}.csv`), "utf8"));
    }
    // self_judging: its rows resample many episodes, so another seed moves their interval ends. (The
    // main table's 3-seed bootstrap-t intervals sit on the few atoms of the t distribution for any seed.)
    expect(readFileSync(join(other, "tables", "self_judging.csv"), "utf8")).not.toBe(readFileSync(join(out, "tables", "self_judging.csv"), "utf8"));
  });

  it("--require-complete leaves the incomplete model out of the main table", async () => {
    const dir = tempDir();
    expect((await run(["--data", main, "--data", shard, "--out", dir, "--bootstrap", "20", "--require-complete"])).rc).toBe(0);
    const csv = readFileSync(join(dir, "tables", "main_results.csv"), "utf8");
    expect(csv).not.toMatch(/^c,/m);
    expect(csv).toMatch(/^a,snake,/m);
    expect(readFileSync(join(dir, "tables", "main_results.md"), "utf8")).toMatch(/Left out by --require-complete.*c \(missing: trust\)/);
  });

  it("--models keeps only the named models", async () => {
    const dir = tempDir();
    expect((await run(["--data", main, "--out", dir, "--bootstrap", "20", "--models", "b"])).rc).toBe(0);
    const rows = readFileSync(join(dir, "tables", "main_results.csv"), "utf8")
      .trimEnd()
      .split("\n")
      .slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.startsWith("b,"))).toBe(true);
  });
});

describe("report arguments", () => {
  const cases: [string, string[], RegExp][] = [
    ["a non-integer --bootstrap", ["--data", "x", "--out", "y", "--bootstrap", "lots"], /--bootstrap must be an integer in 1\.\.1000000, got 'lots'/],
    ["--bootstrap 0", ["--data", "x", "--out", "y", "--bootstrap", "0"], /--bootstrap must be at least 1 \(range 1\.\.1000000\), got 0/],
    ["a negative --seed", ["--data", "x", "--out", "y", "--seed", "-1"], /--seed/],
    ["an unknown flag", ["--data", "x", "--out", "y", "--colour"], /unknown option '--colour': valid options are --data, --out/],
    ["no --data", ["--out", "y"], /--data is required/],
    ["no --out", ["--data", "x"], /--out is required/],
    ["a positional argument", ["--data", "x", "--out", "y", "extra"], /unexpected argument 'extra'/],
  ];
  it.each(cases)("%s -> exit 2 and a one-line error naming the flag", async (_name, argv, message) => {
    const r = await run(argv);
    expect(r.rc).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trimEnd().split("\n")).toHaveLength(1);
  });

  it("an unknown model -> exit 2 listing the valid values", async () => {
    const r = await run(["--data", main, "--out", tempDir(), "--models", "zeta"]);
    expect(r.rc).toBe(2);
    expect(r.err).toMatch(/--models: unknown model 'zeta': valid values are a, b, t/);
  });

  it("a data directory that does not exist -> exit 1 naming it", async () => {
    const r = await run(["--data", join(main, "nope"), "--out", tempDir()]);
    expect(r.rc).toBe(1);
    expect(r.err).toMatch(/nope: data directory not found \(write one first: 'npm run reproduce' writes data\//);
  });

  it("--help prints the usage and exits 0", async () => {
    const r = await run(["--help"]);
    expect(r.rc).toBe(0);
    expect(r.out).toMatch(/usage: s3gym report --data DIR/);
  });
});
