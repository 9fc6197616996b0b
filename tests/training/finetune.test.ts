import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { runFineTune } from "../../src/training/fineTuneJob.js";
import { validateSftFile } from "../../src/training/sftFormat.js";
import { startFakeFineTuneServer, type FakeFineTuneServer } from "../helpers/fakeFineTuneServer.js";

const SENTINEL = "sk-SENTINEL-finetune-0123456789";
const example = (answer: string) =>
  JSON.stringify({
    messages: [
      { role: "system", content: "rules" },
      { role: "user", content: "obs" },
      { role: "assistant", content: `Answer: ${answer}\nScore: 1` },
    ],
  });

function trainFile(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "s3gym-ft-"));
  const file = join(dir, "train.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

let server: FakeFineTuneServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const base = (file: string, url: string, progress: string[]) => ({
  trainFile: file,
  model: "base-model",
  suffix: "s3gym",
  epochs: 2,
  baseURL: url,
  apiKey: SENTINEL,
  pollMs: 1,
  maxWaitMs: 60_000,
  onProgress: (l: string) => progress.push(l),
  sleep: async () => {},
});

describe("fine-tuning adapter", () => {
  it("uploads, creates the job with the hyperparameters, polls to success and returns the model id", async () => {
    server = await startFakeFineTuneServer("success");
    const progress: string[] = [];
    const out = await runFineTune(base(trainFile([example("UP"), example("DOWN")]), server.url, progress));
    expect(out).toEqual({ jobId: "ftjob-1", status: "succeeded", fineTunedModel: "ft:base-model:s3gym:abc123", error: null });
    expect(server.uploads[0]).toContain("Answer: DOWN");
    expect(server.createBodies[0]).toMatchObject({ training_file: "file-1", model: "base-model", suffix: "s3gym", hyperparameters: { n_epochs: 2 } });
    expect(server.retrievals).toBe(4);
    expect(progress).toContain("job ftjob-1: queued -> running");
    expect(progress).toContain("job ftjob-1: running -> succeeded");
    expect(progress.filter((l) => l.includes("step 0 done"))).toHaveLength(1);
    expect(server.authHeaders.every((h) => h === `Bearer ${SENTINEL}`)).toBe(true);
    expect(progress.join("\n")).not.toContain(SENTINEL);
  });

  it("reports the job's failure reason", async () => {
    server = await startFakeFineTuneServer("job_fails");
    const out = await runFineTune(base(trainFile([example("UP")]), server.url, []));
    expect(out.status).toBe("failed");
    expect(out.fineTunedModel).toBeNull();
    expect(out.error).toBe("invalid_training_file: line 3: too many tokens");
  });

  it("stops waiting at the limit without claiming success", async () => {
    server = await startFakeFineTuneServer("success");
    const out = await runFineTune({ ...base(trainFile([example("UP")]), server.url, []), pollMs: 10, maxWaitMs: 20 });
    expect(out.fineTunedModel).toBeNull();
    expect(out.error).toMatch(/stopped waiting after/);
  });
});

describe("SFT file validation", () => {
  it("counts examples and tokens and names bad lines", async () => {
    const ok = await validateSftFile(trainFile([example("UP"), example("LEFT")]));
    expect(ok.format).toBe("openai-chat");
    expect(ok.examples).toBe(2);
    expect(ok.errors).toEqual([]);
    expect(ok.totalTokens).toBe(ok.tokensPerExample[0]! + ok.tokensPerExample[1]!);
    expect(ok.tokensPerExample[0]).toBeGreaterThan(10);
    const bad = await validateSftFile(
      trainFile([
        example("UP"),
        "{not json",
        JSON.stringify({
          messages: [
            { role: "user", content: "x" },
            { role: "user", content: "y" },
          ],
        }),
        JSON.stringify({
          messages: [
            { role: "wizard", content: "x" },
            { role: "assistant", content: "y" },
          ],
        }),
      ]),
    );
    expect(bad.examples).toBe(1);
    expect(bad.errors[0]).toBe("line 2: not valid JSON");
    expect(bad.errors[1]).toMatch(/^line 3: messages: the last message must be the assistant's answer/);
    expect(bad.errors[2]).toMatch(/^line 4: messages\.0\.role/);
  });

  it("reads lines through the one JSONL reader: a torn last line is an error like any bad line; blank lines, CRLF and a missing final newline are not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3gym-ft-"));
    const torn = join(dir, "torn.jsonl");
    writeFileSync(torn, `${example("UP")}\n${example("LEFT").slice(0, 20)}`);
    const t = await validateSftFile(torn);
    expect([t.examples, t.errors]).toEqual([1, ["line 2: not valid JSON"]]);
    const loose = join(dir, "loose.jsonl");
    // Line numbers count the blank line; the last example has no newline and still counts.
    writeFileSync(loose, `${example("UP")}\r\n\r\n${example("LEFT")}\r\n${example("DOWN")}`);
    const l = await validateSftFile(loose);
    expect([l.examples, l.errors]).toEqual([3, []]);
    const blank = join(dir, "blank.jsonl");
    writeFileSync(blank, "\n  \n");
    expect((await validateSftFile(blank)).errors).toEqual(["the file is empty (no example on any line)"]);
  });
});

describe("s3gym finetune (CLI)", () => {
  const run = promisify(execFile);
  async function cli(args: string[], env: Record<string, string> = {}) {
    try {
      const r = await run(process.execPath, ["--import", "tsx", "src/cli/main.ts", "finetune", ...args], { env: { ...process.env, ...env } });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, stdout: x.stdout, stderr: x.stderr };
    }
  }

  it("--dry-run validates and estimates without any API call", async () => {
    const r = await cli(["--train", trainFile([example("UP"), example("DOWN")]), "--model", "m", "--epochs", "4", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/dry run: 2 examples \(openai-chat\)/);
    const total = Number(/total (\d+)/.exec(r.stdout)![1]);
    expect(r.stdout).toContain(`estimated trained tokens: ${total * 4} (4 epochs)`);
  });

  it("prints the model id on success, exits non-zero with the API's reason on rejection, never prints the key", async () => {
    server = await startFakeFineTuneServer("success");
    const ok = await cli(["--train", trainFile([example("UP")]), "--model", "base-model", "--base-url", server.url, "--poll-seconds", "0"], { OPENAI_API_KEY: SENTINEL });
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim().split("\n").at(-1)).toBe("ft:base-model:s3gym:abc123");
    await server.close();
    server = await startFakeFineTuneServer("create_rejected");
    const rejected = await cli(["--train", trainFile([example("UP")]), "--model", "base-model", "--base-url", server.url], { OPENAI_API_KEY: SENTINEL });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain("400: model 'base-model' is not available for fine-tuning");
    for (const r of [ok, rejected]) expect(r.stdout + r.stderr).not.toContain(SENTINEL);
    const nokey = await cli(["--train", trainFile([example("UP")]), "--model", "m", "--api-key-env", "S3GYM_NO_SUCH_KEY"]);
    expect(nokey.code).toBe(2);
    expect(nokey.stderr).toMatch(/set the environment variable S3GYM_NO_SUCH_KEY/);
  });
});
