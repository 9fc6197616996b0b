/** `s3gym sql` and `s3gym export` as a user runs them: the table, CSV, JSON, --schema, errors as `report` gives them. */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { exportCommand } from "../../src/cli/export/export.js";
import { main } from "../../src/cli/main.js";
import { reportCommand } from "../../src/cli/report/report.js";
import { sqlCommand } from "../../src/cli/sql/sql.js";
import { csvField, textTable } from "../../src/cli/sql/sqlOutput.js";
import { curveRecords, exploreRecords, tempDir, writeRun } from "../analysis/helpers.js";
import { run } from "./capture.js";

afterEach(() => vi.restoreAllMocks());

const H = { run_id: "g.history.m", model: "m", game: "g", pathway: "history" };

/** One history run: explore steps (s, r) = (1, 1), (0, 0) | (0, 1); checkpoints 0 and 3. */
function fixture(): { data: string; run: string } {
  const data = tempDir("s3gym-cli-sql-");
  const c = curveRecords(H, [
    [0, [1, 3]],
    [3, [2]],
  ]);
  const e = exploreRecords(H, {
    1: [
      [1, 1],
      [0, 0],
    ],
    2: [[0, 1]],
  });
  const run = writeRun(data, H, { steps: e.steps, episodes: [...c.episodes, ...e.episodes], checkpoints: c.checkpoints });
  return { data, run };
}

describe("s3gym sql", () => {
  it("prints the issue's query as a table: mean |s - r| per game and pathway", async () => {
    const { data } = fixture();
    const r = await run(sqlCommand, ["--data", data, "select game, pathway, avg(abs(self_score - reward)) as e, count(*) as n from steps group by all"]);
    expect(r.rc).toBe(0);
    // |1-1| + |0-0| + |0-1| = 1 over 3 steps
    // 1/3 to the default 6 significant digits (--json and --csv keep every digit unless --precision is given).
    expect(r.out.split("\n")).toEqual([`game  pathway  ${"e".padStart(8)}  n`, "----  -------  --------  -", `g     history  0.333333  3`, "(1 row)", ""]);
  });

  it("--precision sets the digits of floating-point cells; the integer part is never rounded; --json keeps every digit unless asked", async () => {
    const { data } = fixture();
    const q = "select avg(abs(self_score - reward)) as e, 12345.678::double as big, 0.1::double + 0.2::double as tiny from steps";
    const three = await run(sqlCommand, ["--data", data, "--precision", "3", q]);
    expect(three.out.split("\n")[2]).toBe("0.333  12346   0.3");
    const json = await run(sqlCommand, ["--data", data, "--json", q]);
    expect(JSON.parse(json.out)[0].e).toBe(1 / 3);
    const json2 = await run(sqlCommand, ["--data", data, "--json", "--precision", "2", q]);
    expect(JSON.parse(json2.out)[0]).toMatchObject({ e: 0.33, big: 12346 });
    await expect(sqlCommand(["--data", data, "--precision", "0", q])).rejects.toThrow(/--precision must be at least 1/);
  });

  it("a query that starts with a -- comment is a query, never a flag; --file reads one from a file", async () => {
    const { data } = fixture();
    const q = "-- Q1: steps per game\nselect game, count(*) as n from steps group by game";
    const r = await run(sqlCommand, ["--data", data, q]);
    expect(r.rc, r.err).toBe(0);
    expect(r.out.split("\n")[2]).toBe("g     3");
    const first = await run(sqlCommand, [q, "--data", data]);
    expect(first.out).toBe(r.out);
    const file = join(tempDir("s3gym-cli-sql-q-"), "q.sql");
    writeFileSync(file, `${q}\n`);
    const f = await run(sqlCommand, ["--data", data, "--file", file]);
    expect(f.out).toBe(r.out);
    await expect(sqlCommand(["--data", data, "--file", file, "select 1"])).rejects.toThrow(/either on the command line or with --file/);
    await expect(sqlCommand(["--data", data, "--file", `${file}.missing`])).rejects.toThrow(/--file .*missing: no such file/);
    // A mistyped flag is still a flag error.
    await expect(sqlCommand(["--data", data, "--max-row", "3", "select 1"])).rejects.toThrow(/Unknown option '--max-row'/);
  });

  it("--csv writes every row, --json prints objects with integers as numbers", async () => {
    const { data } = fixture();
    const csv = join(tempDir("s3gym-cli-sql-out-"), "x.csv");
    const q = "select checkpoint, score, seed from checkpoints order by checkpoint, episode";
    expect((await run(sqlCommand, ["--data", data, "--csv", csv, q])).rc).toBe(0);
    expect(readFileSync(csv, "utf8")).toBe("checkpoint,score,seed\n0,1.0,0\n0,3.0,1\n3,2.0,0\n".replace(/\.0,/g, ","));
    const j = await run(sqlCommand, ["--data", data, "--json", q]);
    expect(JSON.parse(j.out)).toEqual([
      { checkpoint: 0, score: 1, seed: 0 },
      { checkpoint: 0, score: 3, seed: 1 },
      { checkpoint: 3, score: 2, seed: 0 },
    ]);
  });

  it("keeps the loaded tables in the temp dir's cache for the next query; --no-cache reads and keeps nothing", async () => {
    const tmp = tempDir("s3gym-cli-sql-tmp-");
    vi.stubEnv("TMPDIR", tmp);
    try {
      const root = join(tmp, `s3gym-sql-cache-${process.getuid!()}`);
      const a = fixture();
      expect((await run(sqlCommand, ["--data", a.data, "select count(*) from steps"])).rc).toBe(0);
      expect(readdirSync(root)).toHaveLength(1);
      const b = fixture();
      const r = await run(sqlCommand, ["--data", b.data, "--no-cache", "select count(*) as n from steps"]);
      expect(r.rc).toBe(0);
      expect(r.out).toMatch(/^n\n-\n3\n/);
      expect(readdirSync(root)).toHaveLength(1);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("--schema lists the tables and described columns", async () => {
    const r = await run(sqlCommand, ["--schema"]); // no data needed
    expect(r.rc).toBe(0);
    expect(r.out).toMatch(/^steps: One row per step/m);
    expect(r.out).toMatch(/^ {2}reward +DOUBLE +The verifier step reward r/m);
  });

  it("a torn last line, a torn line mid-file and a run left out for a line that breaks the schema: the same warnings as report, both exit 0 without that run; with no run left, report exits 1 and sql 0", async () => {
    const { data, run: dir } = fixture();
    const steps = join(dir, "steps.jsonl");
    appendFileSync(steps, '{"run_id":"g.hist');
    const out = tempDir("s3gym-cli-sql-rep-");
    const rep = await run(reportCommand, ["--data", data, "--out", out, "--bootstrap", "10"]);
    const sql = await run(sqlCommand, ["--data", data, "select 1"]);
    const warnings = (s: string) => s.split("\n").filter((l) => l.startsWith("warning: "));
    expect([rep.rc, sql.rc]).toEqual([0, 0]);
    expect(warnings(rep.err).filter((w) => w.startsWith(`warning: ${steps}:4: torn last line ignored (invalid JSON (`))).toHaveLength(1);
    expect(warnings(sql.err)).toEqual(warnings(rep.err));
    // Line 4 is now mid-file (damaged), and line 5 parses but breaks the schema: run g.history.m is left
    // out, named. A second run beside it keeps both commands going.
    appendFileSync(steps, '\n{"run_id":"g.history.m","reward":"x"}\n');
    const only = await run(sqlCommand, ["--data", data, "--json", "select count(*) as n from runs"]);
    expect([only.rc, JSON.parse(only.out)]).toEqual([0, [{ n: 0 }]]);
    const leftOut = `warning: left out run ${H.run_id}: ${steps}:5: field 'model': `;
    expect(warnings(only.err).filter((w) => w.startsWith(leftOut))).toHaveLength(1);
    // report has nothing to report: exit 1.
    const none = await run(reportCommand, ["--data", data, "--out", out]);
    expect(none.rc).toBe(1);
    expect(none.err).toContain(`s3gym report: no runs found in ${data}: every run was left out (`);
    // ... and the reason is on the terminal before that line, not only in a report.json that is never written.
    expect(none.err.indexOf(leftOut)).toBeGreaterThanOrEqual(0);
    expect(none.err.indexOf(leftOut)).toBeLessThan(none.err.indexOf("s3gym report: no runs found"));
    const H2 = { ...H, run_id: "g.history.m2", model: "m2" };
    const e2 = exploreRecords(H2, { 1: [[1, 0]] });
    writeRun(data, H2, { steps: e2.steps, episodes: e2.episodes, checkpoints: curveRecords(H2, [[0, [1]]]).checkpoints });
    const rep2 = await run(reportCommand, ["--data", data, "--out", out, "--bootstrap", "10"]);
    const sql2 = await run(sqlCommand, ["--data", data, "--json", "select (select string_agg(run_id, ',') from runs) as runs, (select string_agg(distinct run_id, ',') from steps) as steps"]);
    expect([rep2.rc, sql2.rc]).toEqual([0, 0]);
    expect(warnings(sql2.err)).toEqual(warnings(rep2.err));
    expect(warnings(rep2.err).filter((w) => w.startsWith(`warning: ${steps}:4: damaged line left out (invalid JSON (`))).toHaveLength(1);
    expect(warnings(rep2.err).filter((w) => w.startsWith(leftOut))).toHaveLength(1);
    expect(JSON.parse(sql2.out)).toEqual([{ runs: H2.run_id, steps: H2.run_id }]);
  });

  it("a write is refused with exit 2 and one line", async () => {
    const { data } = fixture();
    const r = await run(main, ["sql", "--data", data, `copy steps to '${join(data, "x.csv")}'`]);
    expect(r.rc).toBe(2);
    const errors = (s: string) => s.split("\n").filter((l) => l !== "" && !l.startsWith("warning: "));
    expect(errors(r.err)).toEqual([expect.stringMatching(/^s3gym sql: the query failed: .*disabled by configuration$/)]);
    const w = await run(main, ["sql", "--data", data, "drop table steps"]);
    expect([w.rc, errors(w.err)]).toEqual([2, [expect.stringMatching(/read-only/)]]);
  });

  it("names a missing query or --data", async () => {
    await expect(sqlCommand([])).rejects.toThrow(/--data is required/);
    await expect(sqlCommand(["--data", "x"])).rejects.toThrow(/a query is required/);
  });
});

describe("the terminal table", () => {
  it("escapes control characters in cells, cuts long ones, and says how many rows were left out", () => {
    const t = textTable(
      ["a", "n"],
      ["VARCHAR", "BIGINT"],
      [
        ["\x1b[2Jx", "1"],
        ["y".repeat(70), null],
      ],
      5,
    );
    expect(t).not.toContain("\x1b");
    expect(t).toContain("\\x1b[2Jx");
    expect(t).toContain(`${"y".repeat(60)}... (70 chars)`);
    expect(t.trimEnd().split("\n").at(-1)).toBe("(5 rows; 2 shown: --max-rows N shows more, --csv FILE or --json gives all)");
  });
  it("quotes CSV fields that need it", () => {
    expect([csvField('a,"b"'), csvField(null), csvField([1, 2]), csvField("x\ny")]).toEqual(['"a,""b"""', "", '"[1,2]"', '"x\ny"']);
  });
});

describe("s3gym export", () => {
  it("writes one file per table and schema.json; CSV lists as JSON text", async () => {
    const { data } = fixture();
    const out = tempDir("s3gym-cli-export-");
    const r = await run(exportCommand, ["--data", data, "--out", out, "--format", "csv"]);
    expect(r.rc).toBe(0);
    expect(r.out).toMatch(/wrote 9 files .*steps 3,/);
    const schema = JSON.parse(readFileSync(join(out, "schema.json"), "utf8"));
    expect(schema.tables.map((t: { name: string }) => t.name)).toEqual(["runs", "episodes", "steps", "checkpoints", "calls", "memory", "curriculum", "verdicts"]);
    const cps = readFileSync(join(out, "checkpoints.csv"), "utf8").split("\n");
    expect(cps[0]).toBe("run_id,model,game,pathway,checkpoint,view,mean,status,reason,failed_episodes,valid,episode,seed,score,score_source");
    await expect(exportCommand(["--data", data, "--out", out, "--format", "xlsx"])).rejects.toThrow(/expected one of parquet, csv/);
  });
});
