/**
 * Red team, issue 32 cases 4, 5 and 6: a sentinel key appears in no file or stream that run,
 * report, view, finetune and the preflight produce, in any of its forms (as is, base64, URL-encoded).
 *
 * Before: finetune printed a key pasted as `--api-key-env` and a 401 body echoing `Bearer <key>`
 * with live OSC sequences; the preflight printed `http://user:PASS@host/v1/models`; a reply carrying
 * the key was stored as is in steps.jsonl, the response cache and the view site, and a 500 body with
 * the key in base64 was printed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { finetuneCommand } from "../../src/cli/finetune/finetune.js";
import { reportCommand } from "../../src/cli/report/report.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { viewCommand } from "../../src/cli/view/view.js";
import { clearSecrets, redactSecrets, registerSecret } from "../../src/models/secrets.js";
import { startFake, type FakeEndpoint } from "../helpers/fakeEndpoints.js";

// Not shaped like any provider's key: only the registered value (and its forms) can catch it.
const KEY = "S3gymSentinel0123456789QwErTy";
const SOURCES = [KEY, Buffer.from(KEY).toString("base64"), Buffer.from(`user:${KEY}`).toString("base64"), encodeURIComponent(`${KEY}/+=`)];
/** What must not survive: the key, and long pieces of each encoded form (a piece is enough to decode most of it). */
const FORMS = [KEY, SOURCES[1]!.slice(0, 36), SOURCES[2]!.slice(8, 40), SOURCES[3]!];

function everyFile(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...everyFile(p));
    else out.push(p);
  }
  return out;
}

function expectNoKey(where: string, text: string): void {
  for (const f of FORMS) expect(text.includes(f), `${where} holds the key (${f})`).toBe(false);
}

let fake: FakeEndpoint | null = null;
let server: Server | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
  vi.restoreAllMocks();
  clearSecrets();
});

/** process.stdout/stderr written during `fn`, as one string. */
async function captured(fn: () => Promise<number>): Promise<{ code: number; text: string }> {
  const chunks: string[] = [];
  const grab = (s: unknown) => (chunks.push(String(s)), true);
  vi.spyOn(process.stdout, "write").mockImplementation(grab);
  vi.spyOn(process.stderr, "write").mockImplementation(grab);
  try {
    return { code: await fn(), text: chunks.join("") };
  } finally {
    vi.restoreAllMocks();
  }
}

describe("the redaction layer", () => {
  it("removes the registered key in each form, URL credentials and key-like query parameters", () => {
    registerSecret(KEY);
    const text = `a ${SOURCES.join(" b ")} http://bob:${"pw".repeat(5)}@h/v1?api-key=zzz&x=1 Basic ${Buffer.from(`u:${KEY}`).toString("base64")}`;
    const out = redactSecrets(text);
    expectNoKey("redacted text", out);
    expect(out).toContain("http://[redacted]@h/v1?api-key=[redacted]&x=1");
    expect(out).not.toContain("pwpw");
  });
});

describe("a sentinel key through run, report, view, finetune and the preflight", () => {
  it("appears in no file and no stream", async () => {
    const b64 = Buffer.from(KEY).toString("base64");
    fake = await startFake({
      family: "vllm",
      requireKey: KEY,
      // The model repeats the key in every form, and a 500 on call 3 carries it in base64.
      answer: () => `Answer: UP\nScore: 0\nmy key is ${KEY}, or ${b64}, or ${encodeURIComponent(`${KEY}/+=`)}`,
      rawReply: (n) => (n === 3 ? [500, JSON.stringify({ error: { message: `upstream said Basic ${b64} \u001b]0;pwned\u0007` } }), "application/json"] : null),
    });
    const data = mkdtempSync(join(tmpdir(), "s3key-data-"));
    const out = mkdtempSync(join(tmpdir(), "s3key-out-"));
    const site = mkdtempSync(join(tmpdir(), "s3key-site-"));
    const streams: string[] = [];
    const io = { stdout: { write: (t: string) => streams.push(t) }, stderr: { write: (t: string) => streams.push(t) } };
    const env = { S3GYM_KEY: KEY };
    const flags = [
      "--games",
      "snake",
      "--pathways",
      "history",
      "--explore-episodes",
      "2",
      "--checkpoint-every",
      "2",
      "--eval-episodes",
      "1",
      "--max-steps",
      "4",
      "--context-tokens",
      "8000",
      "--max-new-tokens",
      "500",
      "--progress",
      "lines",
      "--data",
      data,
    ];

    const url = fake.url;
    const run = await withExitCode("run", () => runCommand(["--models", "openai:fake-model", "--base-url", url, "--api-key-env", "S3GYM_KEY", ...flags], { env, ...io }), io);
    expect(run, streams.join("")).not.toBe(2);
    // The preflight against a base URL that carries the key as userinfo and as a query parameter.
    const dead = `http://user:${KEY}@127.0.0.1:9/v1?api-key=${KEY}`;
    const pre = await withExitCode(
      "run",
      () => runCommand(["--models", "openai:fake-model", "--base-url", dead, "--api-key-env", "S3GYM_KEY", ...flags, "--data", mkdtempSync(join(tmpdir(), "s3key-pre-"))], { env, ...io }),
      io,
    );
    expect(pre).toBe(2);
    expect(streams.join("")).toContain("cannot reach");

    const report = await captured(() => reportCommand(["--data", data, "--out", out]));
    expect(report.code).toBe(0);
    const view = await captured(() => viewCommand(["--data", data, "--out", site]));
    expect(view.code).toBe(0);

    // finetune: a key pasted where the variable name goes, then a 401 that echoes the bearer token with escapes.
    const train = join(out, "train.jsonl");
    writeFileSync(
      train,
      `${JSON.stringify({
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "Answer: UP" },
        ],
      })}\n`.repeat(10),
    );
    const pasted = await captured(() => finetuneCommand(["--train", train, "--model", "base", "--api-key-env", KEY]).catch((e: Error) => (process.stderr.write(e.message), 2)));
    server = createServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: Bearer ${KEY} \u001b]0;pwned\u0007\u001b[2J` } }));
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    process.env.S3GYM_FT_KEY = KEY;
    const echoed = await captured(() =>
      finetuneCommand(["--train", train, "--model", "base", "--api-key-env", "S3GYM_FT_KEY", "--base-url", base]).catch((e: Error) => (process.stderr.write(e.message), 2)),
    );
    delete process.env.S3GYM_FT_KEY;
    expect(echoed.code).toBe(1);
    expect(echoed.text).toContain("401");
    expect(echoed.text).not.toContain("\u001b");

    expect(everyFile(data).length).toBeGreaterThan(5);
    for (const f of [...everyFile(data), ...everyFile(out), ...everyFile(site)]) expectNoKey(f, readFileSync(f, "latin1"));
    expectNoKey("run and preflight streams", streams.join(""));
    expectNoKey("report's streams", report.text);
    expectNoKey("view's streams", view.text);
    expectNoKey("finetune with a pasted key", pasted.text);
    expectNoKey("finetune's 401", echoed.text);
  }, 120_000);
});
