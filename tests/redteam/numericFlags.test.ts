/**
 * Red team, item 6 of issue 12: every numeric flag and models-file number is bounded, and the error
 * names the flag and its range (a negative value included: it used to say "argument is ambiguous").
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { parseServeArgs } from "../../src/cli/serve/serve.js";
import { createModelContext, validateModelSpecs } from "../../src/models/assembleModel.js";
import { parseModelsFile } from "../../src/models/modelsFile.js";

async function run(argv: string[]) {
  const err: string[] = [];
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: "EMPTY" }, ...io }), io);
  return { code, err: err.join("") };
}

describe("numeric flags of s3gym run", () => {
  const base = (data: string) => ["--models", "builtin:random", "--games", "snake", "--pathways", "none", "--data", data];
  it.each([
    [["--timeout-ms", "9999999999"], /--timeout-ms must be at most 2147483647 \(range 1\.\.2147483647\), got 9999999999/],
    [["--explore-episodes", "100000000"], /--explore-episodes must be at most 10000 \(range 0\.\.10000\)/],
    [["--explore-episodes", "1e8"], /--explore-episodes must be a non-negative integer in 0\.\.10000, got '1e8'/],
    [["--max-steps", "-5"], /--max-steps must be an integer in 1\.\.100000, got '-5'/],
    [["--timeout-ms", "-1"], /--timeout-ms must be an integer in 1\.\.2147483647, got '-1'/],
    [["--concurrency", "-3"], /--concurrency must be an integer in 1\.\.10000/],
    [["--max-retries", "1000"], /--max-retries must be at most 100/],
    [["--run-seed", "4294967296"], /--run-seed must be at most 4294967295/],
    [["--eval-episodes", "0"], /--eval-episodes must be at least 1 \(range 1\.\.10000\)/],
  ])("%j", async (extra, message) => {
    const data = mkdtempSync(join(tmpdir(), "s3flags-"));
    const r = await run([...base(data), ...extra]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/ambiguous/);
    expect(existsSync(join(data, "runs"))).toBe(false);
  });

  it("a dash value that is not a number is still refused by the parser, not taken as a value", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3flags-"));
    const r = await run([...base(data), "--max-steps", "--progress", "off"]);
    expect(r.code).toBe(2);
  });
});

describe("other numeric inputs", () => {
  it("s3gym serve takes a negative value as a value and names its range", () => {
    expect(() => parseServeArgs(["--latency-ms", "-5"])).toThrow(/--latency-ms must be an integer in 0\.\.3600000, got '-5'/);
  });

  it("the API refuses a timeout Node would clamp to 1 ms", () => {
    const ctx = createModelContext({ timeoutMs: 9_999_999_999, env: {} });
    expect(() => validateModelSpecs(["builtin:random"], ctx)).toThrow(/--timeout-ms must be a number in 1\.\.2147483647/);
  });

  it.each([
    [{ concurrency: 100_000 }, /models\[0\]\.concurrency: Too big: expected number to be <=10000/],
    [{ sampling: { max_tokens: 1e12 } }, /models\[0\]\.sampling\.max_tokens: Too big/],
    [{ sampling: { seed: -1 } }, /models\[0\]\.sampling\.seed: Too small: expected number to be >=0/],
    [{ price: { input: 5e9, output: 1 } }, /models\[0\]\.price\.input: Too big: expected number to be <=1000000/],
  ])("models file %j", (extra, message) => {
    const dir = mkdtempSync(join(tmpdir(), "s3mf-"));
    const path = join(dir, "models.json");
    writeFileSync(path, JSON.stringify({ models: [{ alias: "a", spec: "openai:x", ...extra }] }));
    expect(() => parseModelsFile(JSON.stringify({ models: [{ alias: "a", spec: "openai:x", ...extra }] }), path)).toThrow(message);
  });
});
