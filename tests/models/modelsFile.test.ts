import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModelsFile, parseModelsFile } from "../../src/models/modelsFile.js";
import { SENTINEL_KEY } from "./helpers.js";

const YAML = `
models:
  - alias: mini-low
    spec: openai:gpt-4o-mini
    base_url: http://127.0.0.1:8000/v1
    api_key_env: LOCAL_KEY
    sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 2000, seed: 1, extra_body: { reasoning_effort: low } }
    price: { input: 0.15, output: 0.6, cached_input: 0.075 }
    concurrency: 4
  - alias: offline
    spec: builtin:heuristic
`;

function errorOf(text: string, source = "m.json"): string {
  try {
    parseModelsFile(text, source);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a validation error");
}

describe("models file", () => {
  it("reads YAML and JSON with the same schema", () => {
    const y = parseModelsFile(YAML, "models.yaml");
    expect(y[0]).toMatchObject({ alias: "mini-low", api_key_env: "LOCAL_KEY", sampling: { extra_body: { reasoning_effort: "low" } }, price: { cached_input: 0.075 } });
    const dir = mkdtempSync(join(tmpdir(), "s3gym-models-"));
    writeFileSync(join(dir, "m.json"), JSON.stringify({ models: y }));
    expect(loadModelsFile(join(dir, "m.json"))).toEqual(y);
  });
  it("names the field of every error", () => {
    const msg = errorOf(JSON.stringify({ models: [{ alias: "a", spec: "openai:x", sampling: { temperature: "hot", temprature: 1 }, price: { input: -1, output: 1 }, concurrency: 0 }] }));
    expect(msg).toContain("models file m.json");
    expect(msg).toContain("models[0].sampling.temperature");
    expect(msg).toMatch(/models\[0\]\.sampling: Unrecognized key: "temprature"/);
    expect(msg).toContain("models[0].price.input");
    expect(msg).toContain("models[0].concurrency");
    expect(errorOf(JSON.stringify({ models: [{ alias: "a" }] }))).toContain("models[0].spec");
    expect(
      errorOf(
        JSON.stringify({
          models: [
            { alias: "a", spec: "x" },
            { alias: "a", spec: "y" },
          ],
        }),
      ),
    ).toMatch(/models\[1\]\.alias: duplicate alias 'a'/);
    expect(errorOf(JSON.stringify({ models: [{ alias: "a,b", spec: "x" }] }))).toContain("models[0].alias");
    expect(errorOf(JSON.stringify({ models: [{ alias: "a", spec: "x", base_url: "ftp://host" }] }))).toContain("models[0].base_url");
    expect(errorOf("{}")).toContain("models");
    expect(errorOf(JSON.stringify({ models: [{ alias: "a", spec: "x", send_seed: "no" }] }))).toContain("models[0].send_seed");
    expect(errorOf(JSON.stringify({ models: [{ alias: "a", spec: "x", send_seed: false, sampling: { seed: 3 } }] }))).toMatch(/models\[0\]\.send_seed: is false but sampling\.seed is set/);
  });
  it("rejects a key pasted as api_key_env without echoing it", () => {
    const msg = errorOf(JSON.stringify({ models: [{ alias: "a", spec: "openai:x", api_key_env: SENTINEL_KEY }] }));
    expect(msg).toContain("models[0].api_key_env");
    expect(msg).toContain("NAME of an environment variable");
    expect(msg).not.toContain("SENTINEL");
  });
  it("reports syntax errors and unreadable files", () => {
    expect(errorOf("models: [", "m.yaml")).toMatch(/m\.yaml: not valid YAML/);
    expect(errorOf("{", "m.json")).toMatch(/m\.json: not valid JSON/);
    expect(() => loadModelsFile("/nonexistent/m.yaml")).toThrow(/cannot read it \(ENOENT\)/);
  });
});
