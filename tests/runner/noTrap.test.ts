/**
 * No trap before the first episode: a run refused before any episode (the preflight, a bad flag, a
 * protocol clash) leaves the data directory byte for byte as it was, so the fix the refusal names
 * starts; and a `protocol.json` with no run beside it and no living claimer (what older kits left
 * after such a refusal) never blocks a changed protocol.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { clearSecrets } from "../../src/models/secrets.js";
import { startFake, type FakeEndpoint } from "../helpers/fakeEndpoints.js";

let fake: FakeEndpoint | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
  clearSecrets();
});

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: "EMPTY" }, ...io, modelContext: { sleep: async () => {} } }), io);
  return { code, out: out.join(""), err: err.join("") };
}

/** Every path under `dir` with its bytes (directories as "<dir>"), sorted: equal snapshots, equal trees. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        out[relative(dir, p)] = "<dir>";
        walk(p);
      } else out[relative(dir, p)] = readFileSync(p, "latin1");
    }
  };
  walk(dir);
  return out;
}

const tiny = ["--explore-episodes", "1", "--checkpoint-every", "1", "--eval-episodes", "1", "--max-steps", "8", "--progress", "off"];

function dataWithNote(): string {
  const data = join(mkdtempSync(join(tmpdir(), "s3trap-")), "data");
  mkdirSync(data);
  writeFileSync(join(data, "NOTE.txt"), "the user's own file\n");
  return data;
}

describe("a refusal before the first episode writes nothing", () => {
  it("a preflight refusal (the server's window is small) leaves the directory as it was, and the suggested --context-tokens starts", async () => {
    fake = await startFake({ family: "vllm", maxModelLen: 8192, tokenize: false });
    const data = dataWithNote();
    const before = snapshot(data);
    const base = ["--models", "openai:fake-model", "--base-url", fake.url, "--games", "snake", "--pathways", "none", "--data", data, ...tiny];
    const refused = await run(base);
    expect(refused.code).toBe(2);
    const suggested = /fix: --context-tokens (\d+)/.exec(refused.err);
    expect(suggested, refused.err).not.toBeNull();
    expect(snapshot(data)).toEqual(before);
    // The refusal's own fix, with a reply reserve that fits inside it.
    const again = await run([...base, "--context-tokens", suggested![1]!, "--max-new-tokens", "1024"]);
    expect(again.err).not.toMatch(/another protocol/);
    expect(again.code, again.err).toBe(0);
    expect(readdirSync(join(data, "runs"))).toHaveLength(1);
  });

  it("a data directory that does not exist yet is not created by a refused run", async () => {
    fake = await startFake({ family: "vllm", maxModelLen: 8192, tokenize: false });
    const data = join(mkdtempSync(join(tmpdir(), "s3trap-")), "fresh");
    const r = await run(["--models", "openai:fake-model", "--base-url", fake.url, "--games", "snake", "--pathways", "none", "--data", data, ...tiny]);
    expect(r.code).toBe(2);
    expect(existsSync(data)).toBe(false);
  });

  it("a bad flag and a protocol clash leave the directory as it was", async () => {
    const data = dataWithNote();
    const before = snapshot(data);
    const base = ["--models", "builtin:random", "--games", "snake", "--pathways", "none", "--data", data, ...tiny];
    expect((await run([...base, "--eval-episodes", "-3"])).code).toBe(2);
    expect(snapshot(data)).toEqual(before);
    expect((await run(base)).code).toBe(0);
    const played = snapshot(data);
    const clash = await run([...base.map((a) => (a === "builtin:random" ? "builtin:heuristic" : a)), "--max-steps", "6"]);
    expect(clash.code).toBe(2);
    expect(clash.err).toMatch(/already holds runs of another protocol/);
    expect(snapshot(data)).toEqual(played);
  });
});

describe("estimates and spend caps before the first episode", () => {
  it("--estimate writes nothing; a rerun whose cap earlier invocations already spent is refused, the directory as it was", async () => {
    fake = await startFake({ family: "vllm" });
    const data = dataWithNote();
    const file = join(data, "models.yaml");
    writeFileSync(file, `models:\n  - alias: paid\n    spec: openai:fake-model\n    base_url: ${fake.url}\n    price: { input: 1000, output: 1000 }\n`);
    const base = ["--models-file", file, "--models", "paid", "--games", "snake", "--pathways", "none", "--data", data, ...tiny, "--context-tokens", "8000", "--max-new-tokens", "512"];
    const before = snapshot(data);
    const estimate = await run([...base, "--estimate", "--max-usd", "0.01"]);
    expect(estimate.code, estimate.err).toBe(0);
    expect(estimate.out).toMatch(/does NOT fit/);
    expect(snapshot(data)).toEqual(before);
    // A cap far below one episode: the first invocation stops partial after its first episode.
    expect((await run([...base, "--max-usd", "0.01"])).code).toBe(1);
    const spent = snapshot(data);
    // Another game joins the matrix under the same spent cap: refused before its run is opened.
    const again = await run([...base.map((a) => (a === "snake" ? "snake,trust" : a)), "--max-usd", "0.01"]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/spend cap reached: \$\d+\.\d+ spent of --max-usd \$0\.0100 by earlier invocations of these runs; nothing was run/);
    expect(snapshot(data)).toEqual(spent);
  });
});

describe("a protocol.json with no run beside it", () => {
  const old = (maxSteps: number) => `${JSON.stringify({ protocol: { max_steps: maxSteps, context_tokens: 100000 } }, null, 2)}\n`;
  const argv = (data: string) => ["--models", "builtin:random", "--games", "snake", "--pathways", "none", "--data", data, ...tiny];

  it("left by an older kit (no claimer recorded): a changed protocol starts and records its own", async () => {
    const data = dataWithNote();
    writeFileSync(join(data, "protocol.json"), old(99));
    const r = await run(argv(data));
    expect(r.code, r.err).toBe(0);
    const now = JSON.parse(readFileSync(join(data, "protocol.json"), "utf8")) as { protocol: { max_steps: number } };
    expect(now.protocol.max_steps).toBe(8);
  });

  it("claimed by a process that has ended on this host: a changed protocol starts", async () => {
    const data = dataWithNote();
    writeFileSync(join(data, "protocol.json"), JSON.stringify({ protocol: { max_steps: 99 }, claimed_by: { host: hostname(), pid: 2 ** 22 + 12345 } }));
    expect((await run(argv(data))).code).toBe(0);
  });

  it("still binds while its claimer lives (a racing start is creating its runs) or when a run is beside it", async () => {
    const live = dataWithNote();
    writeFileSync(join(live, "protocol.json"), JSON.stringify({ protocol: { max_steps: 99 }, claimed_by: { host: hostname(), pid: process.pid } }));
    const r = await run(argv(live));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/protocol\.json differs: .*max_steps: 99 -> 8/);
    const beside = dataWithNote();
    writeFileSync(join(beside, "protocol.json"), old(99));
    mkdirSync(join(beside, "runs", "some-run"), { recursive: true });
    expect((await run(argv(beside))).code).toBe(2);
  });
});
