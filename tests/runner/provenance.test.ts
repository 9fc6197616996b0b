/**
 * A run's manifest records the provenance a reviewer checks: the kit (version, commit, dirty flag),
 * Node, and what the model actually used — the key variable a models-file entry names (never its
 * value) and its concurrency, not the flags' defaults — the endpoint, and the fingerprints the
 * replies carried. Manifests written before the record existed still load.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { RunManifest } from "../../src/logs/schema.js";
import { clearSecrets } from "../../src/models/secrets.js";
import { startFake, type FakeEndpoint } from "../helpers/fakeEndpoints.js";

const KEY = "sk-PROVENANCE-SENTINEL-77aa";
let fake: FakeEndpoint | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
  clearSecrets();
});

async function run(argv: string[], env: Record<string, string>) {
  const err: string[] = [];
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env, ...io, modelContext: { sleep: async () => {} } }), io);
  return { code, err: err.join("") };
}

const tiny = ["--explore-episodes", "1", "--checkpoint-every", "1", "--eval-episodes", "1", "--max-steps", "8", "--progress", "off", "--context-tokens", "8000", "--max-new-tokens", "512"];

function onlyManifest(data: string): { raw: string; m: Record<string, any> } {
  const [id] = readdirSync(join(data, "runs"));
  const raw = readFileSync(join(data, "runs", id!, "manifest.json"), "utf8");
  return { raw, m: JSON.parse(raw) };
}

describe("provenance in the manifest", () => {
  it("a models-file entry's key variable and concurrency are recorded as used, with the served fingerprints; the key never", async () => {
    fake = await startFake({ family: "vllm", fingerprint: (n) => (n < 5 ? "fp-one" : "fp-two"), servedModel: (n) => (n < 3 ? "fake-model" : "fake-model-2026-01-01") });
    const data = mkdtempSync(join(tmpdir(), "s3prov-"));
    const file = join(data, "models.yaml");
    writeFileSync(file, `models:\n  - alias: mine\n    spec: openai:fake-model\n    base_url: ${fake.url}\n    api_key_env: VLLM_KEY\n    concurrency: 16\n`);
    const r = await run(["--models-file", file, "--models", "mine", "--games", "snake", "--pathways", "none", "--data", data, ...tiny], { VLLM_KEY: KEY });
    expect(r.code, r.err).toBe(0);
    const { raw, m } = onlyManifest(data);
    expect(raw).not.toContain(KEY);
    const p = m.provenance;
    expect(p.api_key_env).toBe("VLLM_KEY");
    expect(p.concurrency).toBe(16);
    expect(p.endpoint).toBe(new URL(fake.url).host);
    expect(p.served_fingerprints).toEqual(["fp-one", "fp-two"]);
    // Replies that echo the id asked for add nothing; the dated snapshot behind it is named.
    expect(p.served_models).toEqual(["fake-model-2026-01-01"]);
    const calls = readFileSync(join(data, "runs", readdirSync(join(data, "runs"))[0]!, "calls.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    // The first replies (the preflight's probe among them, which calls.jsonl does not log) echoed the id.
    const echoed = calls.filter((c) => c.served_model === undefined).length;
    expect(echoed).toBeGreaterThanOrEqual(1);
    expect(echoed).toBeLessThanOrEqual(3);
    expect(new Set(calls.map((c) => c.served_model).filter(Boolean))).toEqual(new Set(["fake-model-2026-01-01"]));
    expect(p.node_version).toBe(process.version);
    expect(p.kit_version).toBe(JSON.parse(readFileSync("package.json", "utf8")).version);
    const git = spawnSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" });
    if (git.status === 0) {
      expect(p.kit_commit).toBe(git.stdout.trim());
      expect(typeof p.kit_dirty).toBe("boolean");
    }
    // The invocation no longer says what the flags defaulted to.
    expect(m.config.invocation.api_key_env).toBe("VLLM_KEY");
    expect(m.config.invocation.concurrency).toBe(16);
  });

  it("flags without a models file: the flags' key variable and concurrency", async () => {
    fake = await startFake({ family: "vllm" });
    const data = mkdtempSync(join(tmpdir(), "s3prov-"));
    const r = await run(["--models", "openai:fake-model", "--base-url", fake.url, "--api-key-env", "MY_KEY", "--concurrency", "3", "--games", "snake", "--pathways", "none", "--data", data, ...tiny], {
      MY_KEY: KEY,
    });
    expect(r.code, r.err).toBe(0);
    const { m } = onlyManifest(data);
    expect([m.provenance.api_key_env, m.provenance.concurrency, m.provenance.served_fingerprints, m.provenance.served_models]).toEqual(["MY_KEY", 3, [], []]);
    expect(readFileSync(join(data, "runs", readdirSync(join(data, "runs"))[0]!, "calls.jsonl"), "utf8")).not.toContain("served_model");
  });

  it("a built-in model: no key variable, no concurrency limit, endpoint builtin", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3prov-"));
    const r = await run(["--models", "builtin:random", "--games", "snake", "--pathways", "none", "--data", data, ...tiny], {});
    expect(r.code, r.err).toBe(0);
    const { m } = onlyManifest(data);
    expect([m.provenance.api_key_env, m.provenance.concurrency, m.provenance.endpoint]).toEqual([null, null, "builtin"]);
    expect(m.config.invocation).not.toHaveProperty("api_key_env");
  });

  it("a manifest written before provenance existed still loads", () => {
    const old = {
      run_id: "r",
      model: "m",
      game: "snake",
      pathway: "none",
      kit_version: "0.0.1",
      endpoint_host: "builtin",
      run_seed: 0,
      explore_seeds: [],
      eval_seeds: [],
      reward_visibility: "hidden",
      config: {},
      started_at: "2026-01-01T00:00:00Z",
      ended_at: null,
      status: "complete",
    };
    const parsed = RunManifest.parse(old);
    expect(parsed.provenance).toBeUndefined();
    expect(RunManifest.safeParse({ ...old, provenance: { kit_version: "x" } }).success).toBe(false);
  });
});
