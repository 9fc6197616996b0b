/**
 * `s3gym export --format inspect`: one Inspect eval log per run, each valid against Inspect's own
 * EvalLog schema (pinned in tests/fixtures/inspect) with a standard JSON-schema validator that also
 * rejects broken copies; as many samples as the run has episodes; the per-step self-scores and
 * rewards summed from the export equal those summed from steps.jsonl; each step's input is the
 * messages the model actually received (recorded by the test's models, not rebuilt by the kit).
 */
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { safeFileStem } from "../../../src/report/interop/exportInterop.js";
import { inspectStatus } from "../../../src/report/interop/inspectLog.js";
import type { ChatMessage } from "../../../src/models/types.js";
import { run } from "../../cli/capture.js";
import { writeHandRun } from "../../helpers/handLogs.js";
import { evalLogValidator, errorLines } from "./inspectValidator.js";
import { makeExportFixture, type ExportFixture } from "./fixture.js";

type Json = any;

/** The JSONL lines of a run's file (every line whole). */
function jsonl(dir: string, runId: string, file: string): Json[] {
  for (const d of dir.split(",")) {
    try {
      return readFileSync(join(d, "runs", runId, file), "utf8")
        .split("\n")
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l));
    } catch {
      continue;
    }
  }
  return [];
}

const viewOf = (r: Json): string => (r.phase === "explore" ? "explore" : (r.view ?? "eval"));
const episodeKey = (r: Json): string => `${viewOf(r)}|${r.checkpoint}|${r.episode}`;

/** The deduplicated steps of a run, read here from the raw lines (the last line of a step wins, as a resumed run's reader does). */
function stepsOf(fx: ExportFixture, runId: string): Json[] {
  const byKey = new Map<string, Json>();
  for (const d of fx.dirs) for (const s of jsonl(d, runId, "steps.jsonl")) byKey.set(`${episodeKey(s)}|${s.step}`, s);
  return [...byKey.values()];
}

/** `attachment://` references of a sample resolved (Inspect's reader does the same). */
function resolve(sample: Json, v: unknown): unknown {
  if (typeof v === "string" && v.startsWith("attachment://")) {
    const text = sample.attachments[v.slice("attachment://".length)];
    if (typeof text !== "string") throw new Error(`unresolved ${v}`);
    return text;
  }
  if (Array.isArray(v)) return v.map((x) => resolve(sample, x));
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(sample, x)]));
  return v;
}

describe("s3gym export --format inspect", () => {
  let fx: ExportFixture;
  let out: string;
  let stdout: string;
  const logs = new Map<string, Json>();
  const validate = evalLogValidator();

  beforeAll(async () => {
    fx = await makeExportFixture();
    out = mkdtempSync(join(tmpdir(), "s3inspect-"));
    const cap = await run(main, ["export", "--format", "inspect", "--bootstrap", "200", ...fx.dirs.flatMap((d) => ["--data", d]), "--out", out]);
    expect(cap.rc, cap.err).toBe(0);
    stdout = cap.out;
    for (const f of readdirSync(out)) {
      const log = JSON.parse(readFileSync(join(out, f), "utf8"));
      logs.set(log.eval.run_id, log);
    }
  }, 240_000);

  it("writes one log per run, named by its run id, and says how many", () => {
    expect([...logs.keys()].sort()).toEqual([...fx.runIds].sort());
    expect(readdirSync(out).sort()).toEqual(fx.runIds.map((id) => `${safeFileStem(id)}.json`).sort());
    expect(stdout).toContain(`wrote ${fx.runIds.length} Inspect eval logs`);
  });

  it("every file validates against the pinned EvalLog schema, required fields included", () => {
    for (const f of readdirSync(out)) {
      const log = JSON.parse(readFileSync(join(out, f), "utf8"));
      const ok = validate(log);
      expect(ok, `${f}: ${errorLines(validate).slice(0, 5).join("; ")}`).toBe(true);
    }
  });

  it("the same validator rejects broken copies, naming what is wrong", () => {
    const log = logs.get(fx.ids.history);
    const copy = (): Json => JSON.parse(JSON.stringify(log));
    const noEval = copy();
    delete noEval.eval;
    expect(validate(noEval)).toBe(false);
    expect(errorLines(validate).join("\n")).toMatch(/must have required property 'eval'/);

    const badEpoch = copy();
    badEpoch.samples[0].epoch = "first";
    expect(validate(badEpoch)).toBe(false);
    expect(errorLines(validate).join("\n")).toMatch(/\/samples\/0\/epoch must be integer/);

    const noInput = copy();
    delete noInput.samples[0].events.find((e: Json) => e.event === "model").input;
    expect(validate(noInput)).toBe(false);

    const badStatus = copy();
    badStatus.status = "complete"; // the kit's word, not Inspect's
    expect(validate(badStatus)).toBe(false);
  });

  it("holds one sample per episode of the run, each (id, epoch) once, evaluation episodes paired by seed across checkpoints", () => {
    for (const id of fx.runIds) {
      const episodes = new Set(fx.dirs.flatMap((d) => jsonl(d, id, "episodes.jsonl")).map(episodeKey));
      const log = logs.get(id);
      expect(log.samples.length, id).toBe(episodes.size);
      expect(log.results.total_samples, id).toBe(episodes.size);
      expect(new Set(log.samples.map((s: Json) => `${s.id}|${s.epoch}`)).size, id).toBe(log.samples.length);
    }
    const h = logs.get(fx.ids.history);
    const evals = h.samples.filter((s: Json) => s.metadata.phase === "eval" && s.metadata.view === "eval");
    for (const s of evals) {
      expect(s.epoch).toBe(s.metadata.checkpoint + 1);
      expect(s.id).toBe(`eval-${s.metadata.episode}-seed${s.metadata.seed}`);
    }
    // Episode 0 of every checkpoint plays the same seed: one id, one epoch per checkpoint.
    const first = evals.filter((s: Json) => s.metadata.episode === 0);
    expect(new Set(first.map((s: Json) => s.id)).size).toBe(1);
    expect(first.map((s: Json) => s.epoch)).toEqual([1, 2, 3]);
  });

  it("per-step self-scores and rewards summed from the export equal those summed from steps.jsonl", () => {
    for (const id of fx.runIds) {
      const steps = stepsOf(fx, id);
      const want = { r: steps.reduce((a, s) => a + s.reward, 0), s: steps.reduce((a, s) => a + (s.self_score ?? 0), 0), n: steps.length };
      const log = logs.get(id);
      const fromMeta = { r: 0, s: 0, n: 0 };
      const fromEvents = { r: 0, s: 0, n: 0 };
      for (const sample of log.samples) {
        for (const st of sample.metadata.steps) {
          fromMeta.r += st.reward;
          fromMeta.s += st.self_score ?? 0;
          fromMeta.n++;
        }
        for (const e of sample.events.filter((e: Json) => e.event === "score" && e.intermediate)) {
          fromEvents.r += e.score.value.reward;
          fromEvents.s += e.score.value.self_score ?? 0;
          fromEvents.n++;
        }
      }
      expect(want.n, id).toBeGreaterThan(0);
      expect(fromMeta.n, id).toBe(want.n);
      expect(fromEvents.n, id).toBe(want.n);
      expect(fromMeta.r, id).toBeCloseTo(want.r, 9);
      expect(fromMeta.s, id).toBeCloseTo(want.s, 9);
      expect(fromEvents.r, id).toBeCloseTo(want.r, 9);
      expect(fromEvents.s, id).toBeCloseTo(want.s, 9);
    }
  });

  it("each step's input is exactly the messages the model received (History, Summary Memory, verified)", () => {
    for (const id of [fx.ids.none, fx.ids.history, fx.ids.memory, fx.ids.verified]) {
      const sent = new Map<string, ChatMessage[]>();
      for (const r of fx.requests.get(id) ?? []) {
        if (r.identity.purpose !== "step") continue;
        sent.set(`${r.identity.phase === "explore" ? "explore" : (r.identity.view ?? "eval")}|${r.identity.checkpoint}|${r.identity.episode}|${r.identity.step}`, r.messages);
      }
      expect(sent.size, id).toBeGreaterThan(0);
      let compared = 0;
      for (const sample of logs.get(id).samples) {
        const steps = sample.metadata.steps as Json[];
        const models = sample.events.filter((e: Json) => e.event === "model");
        expect(models.length).toBe(steps.length);
        models.forEach((e: Json, k: number) => {
          const key = `${sample.metadata.view}|${sample.metadata.checkpoint}|${sample.metadata.episode}|${steps[k].step}`;
          const input = (resolve(sample, e.input) as Json[]).map((m) => ({ role: m.role, content: m.content }));
          expect(input, `${id} ${key}`).toEqual(sent.get(key));
          compared++;
        });
        // The sample's messages: the last step's input as sent, then its reply.
        const last = resolve(sample, sample.messages) as Json[];
        expect(last.slice(0, -1).map((m) => ({ role: m.role, content: m.content }))).toEqual(
          (resolve(sample, models[models.length - 1].input) as Json[]).map((m: Json) => ({ role: m.role, content: m.content })),
        );
        expect(last[last.length - 1].role).toBe("assistant");
      }
      expect(compared, id).toBe(sent.size);
    }
  });

  it("two scores per sample: the verifier's episode score and the self-judge's mean self-score with its agreement", () => {
    const log = logs.get(fx.ids.history);
    const episodes = new Map(jsonl(fx.dirs[0]!, fx.ids.history, "episodes.jsonl").map((e) => [episodeKey(e), e]));
    const steps = stepsOf(fx, fx.ids.history);
    for (const sample of log.samples) {
      const key = `${sample.metadata.view}|${sample.metadata.checkpoint}|${sample.metadata.episode}`;
      expect(sample.scores.verifier.value).toBe(episodes.get(key).score);
      const own = steps.filter((s) => episodeKey(s) === key);
      const scored = own.filter((s) => s.self_score !== null);
      const mean = scored.length === 0 ? null : scored.reduce((a, s) => a + s.self_score, 0) / scored.length;
      const agree = scored.length === 0 ? null : scored.filter((s) => s.self_score > 0 === s.reward > 0).length / scored.length;
      expect(sample.scores.self_judge.value.mean_self_score).toBeCloseTo(mean as number, 12);
      expect(sample.scores.self_judge.value.agreement).toBeCloseTo(agree as number, 12);
    }
    // The run's results: the report's curve metrics and (a judged run) the self-judging metrics, with intervals.
    const names = log.results.scores.map((s: Json) => s.name);
    expect(names).toEqual(["verifier", "self_judge"]);
    const avg = log.results.scores[0].metrics.avg;
    const checkpoints = jsonl(fx.dirs[0]!, fx.ids.history, "checkpoints.jsonl").filter((c) => c.view === undefined);
    expect(avg.value).toBeCloseTo(checkpoints.reduce((a, c) => a + c.mean, 0) / checkpoints.length, 12);
    expect(avg.metadata.lo).toBeLessThanOrEqual(avg.value);
    expect(avg.metadata.hi).toBeGreaterThanOrEqual(avg.value);
    // A run without judging (none) has no self-judging score in its results.
    expect(logs.get(fx.ids.none).results.scores.map((s: Json) => s.name)).toEqual(["verifier"]);
  });

  it("a flagged run says so; reasoning fields become reasoning content; a resumed run keeps its invocations apart from its samples", () => {
    const deg = logs.get(fx.ids.degenerate);
    expect(deg.status).toBe("error");
    expect(deg.tags).toContain("flagged");
    expect(deg.metadata.s3gym.flagged).toBe(true);
    expect(deg.metadata.s3gym.status).toBe("degenerate");
    expect(deg.error.message).toMatch(/reasoning/);
    for (const id of [fx.ids.none, fx.ids.history, fx.ids.memory, fx.ids.verified, fx.ids.resumed, fx.ids.reasoning]) expect(logs.get(id).status, id).toBe("success");

    const rs = logs.get(fx.ids.reasoning);
    const outputs = rs.samples.flatMap((s: Json) => s.events.filter((e: Json) => e.event === "model").map((e: Json) => resolve(s, e.output.choices[0].message.content)));
    expect(outputs.length).toBeGreaterThan(0);
    expect(outputs.every((c: Json) => Array.isArray(c) && c[0].type === "reasoning" && c[0].reasoning.length > 0 && c[1].type === "text")).toBe(true);
    // Tokens and cost come from calls.jsonl; the fake endpoint reports usage.
    const usage = Object.values(rs.stats.model_usage)[0] as Json;
    const calls = jsonl(fx.dirs[3]!, fx.ids.reasoning, "calls.jsonl");
    expect(usage.input_tokens).toBe(Math.round(calls.reduce((a, c) => a + c.tokens_in, 0)));
    expect(usage.output_tokens).toBe(Math.round(calls.reduce((a, c) => a + c.tokens_out, 0)));

    const manifest = JSON.parse(readFileSync(join(fx.dirs[2]!, "runs", fx.ids.resumed, "manifest.json"), "utf8"));
    expect(manifest.invocations).toBe(2);
  });

  it("maps the kit's run statuses onto Inspect's four", () => {
    expect(["complete", "partial", "running", "degenerate", "failed", "error"].map(inspectStatus)).toEqual(["success", "cancelled", "started", "error", "error", "error"]);
  });

  it("a run id from outside never makes a path: unsafe characters are replaced and the name made unique", () => {
    expect(safeFileStem("chess__none__m__seed0")).toBe("chess__none__m__seed0");
    const s = safeFileStem("../../etc/passwd");
    expect(s).not.toContain("/");
    expect(s.startsWith(".")).toBe(false);
    expect(safeFileStem("a/b")).not.toBe(safeFileStem("a_b"));
  });
});

describe("the pinned schema itself", () => {
  it("rejects Inspect's own older example log for exactly the fields it added since (so required fields are checked)", () => {
    const validate = evalLogValidator();
    const example = JSON.parse(readFileSync(new URL("../../fixtures/inspect/example_2025-05-12T20-28-13-04-00_popularity.json", import.meta.url), "utf8"));
    expect(validate(example)).toBe(false);
    const missing = new Set((validate.errors ?? []).filter((e) => e.instancePath === "" && e.keyword === "required").map((e) => (e.params as { missingProperty: string }).missingProperty));
    expect(missing).toEqual(new Set(["invalidated", "tags", "metadata"]));
    // With Inspect's defaults filled in, the top level passes (any remaining error lies deeper).
    expect(validate({ ...example, invalidated: false, tags: [], metadata: {} }) || (validate.errors ?? []).every((e) => e.instancePath !== "")).toBe(true);
  });
});

describe("text from outside stays data in an Inspect log", () => {
  it("a model name and replies made to look like JSON, markup or attachment references come back as the very text", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3inspect-hostile-"));
    const model = `evil"model\n</script><img src=x onerror=alert(1)>`;
    const sys = "x".repeat(300);
    const fake = `attachment://${"0".repeat(32)}`;
    const dir = writeHandRun(data, {
      game: "trust",
      pathway: "none",
      model,
      episodes: [
        {
          phase: "explore",
          checkpoint: null,
          episode: 1,
          seed: 3,
          steps: [
            { observation: "Round 1", response: fake, action: null, self_score: null, reward: 0, feedback: `attachment://${sys}` },
            { observation: "Round 2", response: `"},"status":"success","x":{"`, action: "cooperate", self_score: 1, reward: 1, feedback: "\u2028\ud800 lone surrogate" },
          ],
        },
      ],
    });
    writeFileSync(join(dir, "checkpoints.jsonl"), "");
    const out = mkdtempSync(join(tmpdir(), "s3inspect-hostile-out-"));
    const r = await run(main, ["export", "--format", "inspect", "--bootstrap", "20", "--data", data, "--out", out]);
    expect(r.rc, r.err).toBe(0);
    const files = readdirSync(out);
    expect(files).toHaveLength(1);
    expect(files[0]).not.toMatch(/[<>"\n/]/);
    const log = JSON.parse(readFileSync(join(out, files[0]!), "utf8"));
    expect(evalLogValidator()(log)).toBe(true);
    expect(log.eval.model).toBe(model);
    const [sample] = log.samples;
    const models = sample.events.filter((e: Json) => e.event === "model");
    // The reply that looks like a reference resolves to itself, not to another text of the sample.
    expect(resolve(sample, models[0].output.completion)).toBe(fake);
    expect(resolve(sample, models[1].output.completion)).toBe(`"},"status":"success","x":{"`);
    expect(resolve(sample, sample.events.find((e: Json) => e.event === "score").score.metadata.feedback)).toBe(`attachment://${sys}`);
    expect(log.status).toBe("success");
  });
});

describe("export's flags for the log formats", () => {
  it("names a flag that does not apply to the format asked for", async () => {
    const { exportCommand } = await import("../../../src/cli/export/export.js");
    await expect(exportCommand(["--data", "d", "--out", "o", "--format", "inspect", "--no-cache"])).rejects.toThrow(/--no-cache applies to --format parquet and csv/);
    await expect(exportCommand(["--data", "d", "--out", "o", "--format", "csv", "--bootstrap", "100"])).rejects.toThrow(/--bootstrap and --seed apply to --format inspect only/);
    await expect(exportCommand(["--data", "d", "--out", "o", "--format", "inspec"])).rejects.toThrow(/one of parquet, csv, inspect, atif/);
  });
});
