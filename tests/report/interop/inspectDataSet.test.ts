/**
 * The Inspect export over a whole data set of your choosing (a reproduction's `data/`):
 *
 *   S3GYM_INSPECT_DATA=/path/to/data npx vitest run tests/report/interop/inspectDataSet.test.ts
 *
 * One log per run, every file valid against the pinned EvalLog schema (a broken copy fails), as
 * many samples as each run has episodes, and the per-step rewards and self-scores summed from the
 * export equal those summed from steps.jsonl. Skipped (saying why) without the variable: the
 * always-run checks are inspectExport.test.ts's, on a small data set of every kind of run.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportInterop } from "../../../src/report/interop/exportInterop.js";
import { evalLogValidator, errorLines } from "./inspectValidator.js";

type Json = any;

const DATA = process.env.S3GYM_INSPECT_DATA;

describe.skipIf(DATA === undefined)(`the Inspect export of ${DATA ?? "a data set (skipped: set S3GYM_INSPECT_DATA to a data directory)"}`, () => {
  it("one valid log per run, a sample per episode, the step sums of steps.jsonl; a broken copy fails", async () => {
    const data = DATA as string;
    const out = mkdtempSync(join(tmpdir(), "s3inspect-data-"));
    const r = await exportInterop({ dataDirs: [data], outDir: out, format: "inspect", B: 200 });
    const runs = readdirSync(join(data, "runs")).filter((d) => existsSync(join(data, "runs", d, "steps.jsonl")));
    expect(r.files.length).toBe(r.runs);
    expect(r.runs).toBeGreaterThanOrEqual(runs.length > 0 ? 1 : 0);
    const validate = evalLogValidator();
    const lines = (id: string, file: string): Json[] => {
      const p = join(data, "runs", id, file);
      return existsSync(p)
        ? readFileSync(p, "utf8")
            .split("\n")
            .filter((l) => l.length > 0)
            .map((l) => JSON.parse(l))
        : [];
    };
    const key = (x: Json): string => `${x.phase === "explore" ? "explore" : (x.view ?? "eval")}|${x.checkpoint}|${x.episode}`;
    let broken: Json = null;
    for (const f of r.files) {
      const log = JSON.parse(readFileSync(f, "utf8"));
      expect(validate(log), `${f}: ${errorLines(validate).slice(0, 3).join("; ")}`).toBe(true);
      const id = log.eval.run_id as string;
      expect(log.samples.length, id).toBe(new Set(lines(id, "episodes.jsonl").map(key)).size);
      const steps = new Map(lines(id, "steps.jsonl").map((s) => [`${key(s)}|${s.step}`, s]));
      const want = [...steps.values()].reduce((a, s) => [a[0] + s.reward, a[1] + (s.self_score ?? 0)], [0, 0]);
      const got = (log.samples as Json[]).flatMap((s) => s.metadata.steps as Json[]).reduce((a, s) => [a[0] + s.reward, a[1] + (s.self_score ?? 0)], [0, 0]);
      expect(got[0], id).toBeCloseTo(want[0] as number, 9);
      expect(got[1], id).toBeCloseTo(want[1] as number, 9);
      broken ??= log;
    }
    expect(broken).not.toBeNull();
    delete broken.samples[0].epoch;
    expect(validate(broken)).toBe(false);
    expect(errorLines(validate).join("\n")).toMatch(/must have required property 'epoch'/);
  }, 600_000);
});
