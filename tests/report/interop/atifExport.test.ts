/**
 * `s3gym export --format atif`: one Harbor ATIF trajectory per episode. Harbor publishes no JSON
 * schema file we could pin, so the shape is checked against the fields and rules of its RFC 0001
 * (v1.7) as written down here: the required fields and their types, step ids counting from 1, and
 * the agent-only fields (model_name, reasoning_content, metrics) on agent steps alone. The same
 * check rejects broken copies.
 */
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { main } from "../../../src/cli/main.js";
import { ATIF_VERSION } from "../../../src/report/interop/atif.js";
import { safeFileStem } from "../../../src/report/interop/exportInterop.js";
import { run } from "../../cli/capture.js";
import { makeExportFixture, type ExportFixture } from "./fixture.js";

type Json = any;

/** ATIF v1.7 (Harbor RFC 0001, section II), the parts a text-game trajectory uses, with their required fields. */
const Metrics = z.object({
  prompt_tokens: z.number().int().optional(),
  completion_tokens: z.number().int().optional(),
  cached_tokens: z.number().int().optional(),
  cost_usd: z.number().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
const Observation = z.object({ results: z.array(z.object({ source_call_id: z.string().optional(), content: z.string().optional(), extra: z.record(z.string(), z.unknown()).optional() })) });
const Step = z
  .object({
    step_id: z.number().int().positive(),
    timestamp: z.string().optional(),
    source: z.enum(["system", "user", "agent"]),
    model_name: z.string().optional(),
    message: z.string(),
    reasoning_content: z.string().optional(),
    tool_calls: z.array(z.object({ tool_call_id: z.string(), function_name: z.string(), arguments: z.record(z.string(), z.unknown()) })).optional(),
    observation: Observation.optional(),
    metrics: Metrics.optional(),
    llm_call_count: z.number().int().nonnegative().optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((s) => s.source === "agent" || (s.model_name === undefined && s.reasoning_content === undefined && s.tool_calls === undefined && s.metrics === undefined), {
    message: "model_name, reasoning_content, tool_calls and metrics belong to agent steps only",
  });
const Trajectory = z
  .object({
    schema_version: z.string().regex(/^ATIF-v\d+\.\d+$/),
    session_id: z.string().optional(),
    trajectory_id: z.string().optional(),
    agent: z.object({ name: z.string(), version: z.string(), model_name: z.string().optional(), extra: z.record(z.string(), z.unknown()).optional() }),
    steps: z.array(Step).min(1),
    notes: z.string().optional(),
    final_metrics: z
      .object({
        total_prompt_tokens: z.number().int().optional(),
        total_completion_tokens: z.number().int().optional(),
        total_cached_tokens: z.number().int().optional(),
        total_cost_usd: z.number().optional(),
        total_steps: z.number().int().optional(),
        extra: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((t) => t.steps.every((s, i) => s.step_id === i + 1), { message: "step_id counts 1, 2, 3 ... in order" });

function jsonl(dir: string, runId: string, file: string): Json[] {
  try {
    return readFileSync(join(dir, "runs", runId, file), "utf8")
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}
const key = (r: Json): string => `${r.phase === "explore" ? "explore" : (r.view ?? "eval")}|${r.checkpoint}|${r.episode}`;

describe("s3gym export --format atif", () => {
  let fx: ExportFixture;
  let out: string;
  beforeAll(async () => {
    fx = await makeExportFixture();
    out = mkdtempSync(join(tmpdir(), "s3atif-"));
    const r = await run(main, ["export", "--format", "atif", ...fx.dirs.flatMap((d) => ["--data", d]), "--out", out]);
    expect(r.rc, r.err).toBe(0);
    expect(r.out).toMatch(/ATIF trajectories \(one per episode\)/);
  }, 240_000);

  it("writes one trajectory per episode, a folder per run, each of the recorded version and valid by the RFC's rules", () => {
    for (const id of fx.runIds) {
      const dir = fx.dirs.find((d) => jsonl(d, id, "episodes.jsonl").length > 0)!;
      const episodes = new Set(jsonl(dir, id, "episodes.jsonl").map(key));
      const files = readdirSync(join(out, safeFileStem(id)));
      expect(files.length, id).toBe(episodes.size);
      for (const f of files) {
        const t = JSON.parse(readFileSync(join(out, safeFileStem(id), f), "utf8"));
        const parsed = Trajectory.safeParse(t);
        expect(parsed.success, `${id}/${f}: ${parsed.success ? "" : parsed.error.message}`).toBe(true);
        expect(t.schema_version).toBe(ATIF_VERSION);
        expect(t.session_id).toBe(id);
      }
    }
  });

  it("a reply's reasoning field becomes the agent step's reasoning_content", () => {
    const dir = join(out, safeFileStem(fx.ids.reasoning));
    const agents = readdirSync(dir).flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")).steps.filter((s: Json) => s.source === "agent"));
    const logged = fx.dirs.flatMap((d) => jsonl(d, fx.ids.reasoning, "steps.jsonl"));
    expect(agents.length).toBe(logged.length);
    expect(logged.every((s) => typeof s.reasoning === "string" && s.reasoning.length > 0)).toBe(true);
    expect(agents.map((s: Json) => s.reasoning_content).sort()).toEqual(logged.map((s) => s.reasoning).sort());
  });

  it("the same check rejects broken copies", () => {
    const dir = join(out, safeFileStem(fx.ids.history));
    const t = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]!), "utf8"));
    const copy = (): Json => JSON.parse(JSON.stringify(t));
    const noAgent = copy();
    delete noAgent.agent;
    expect(Trajectory.safeParse(noAgent).success).toBe(false);
    const renumbered = copy();
    renumbered.steps[1].step_id = 7;
    expect(Trajectory.safeParse(renumbered).success).toBe(false);
    const userWithMetrics = copy();
    userWithMetrics.steps.find((s: Json) => s.source === "user").metrics = { prompt_tokens: 1 };
    expect(Trajectory.safeParse(userWithMetrics).success).toBe(false);
  });

  it("self-scores and hidden rewards sit in the agent steps' extra, equal to steps.jsonl's; the conversation is the one sent", () => {
    const id = fx.ids.history;
    const steps = new Map(jsonl(fx.dirs[0]!, id, "steps.jsonl").map((s) => [`${key(s)}|${s.step}`, s]));
    const sent = new Map(
      (fx.requests.get(id) ?? [])
        .filter((r) => r.identity.purpose === "step")
        .map((r) => [`${r.identity.phase === "explore" ? "explore" : "eval"}|${r.identity.checkpoint}|${r.identity.episode}|${r.identity.step}`, r.messages]),
    );
    let n = 0;
    for (const f of readdirSync(join(out, safeFileStem(id)))) {
      const t = JSON.parse(readFileSync(join(out, safeFileStem(id), f), "utf8"));
      const ep = `${t.extra.view}|${t.extra.checkpoint}|${t.extra.episode}`;
      const agent = t.steps.filter((s: Json) => s.source === "agent");
      for (const [k, a] of agent.entries()) {
        const s = steps.get(`${ep}|${a.extra.step}`);
        expect(a.extra.reward).toBe(s.reward);
        expect(a.extra.self_score).toBe(s.self_score);
        expect(a.message).toBe(s.response);
        // The user step before it holds the newest message the model received at that step.
        const messages = sent.get(`${ep}|${a.extra.step}`)!;
        const user = t.steps[t.steps.indexOf(a) - 1];
        expect(user.source).toBe("user");
        expect(user.message).toBe(messages[messages.length - 1]!.content);
        if (k === 0) expect(t.steps[0]).toMatchObject({ source: "system", message: messages[0]!.content });
        n++;
      }
      expect(t.extra.reward_sum).toBeCloseTo(
        agent.reduce((x: number, a: Json) => x + a.extra.reward, 0),
        12,
      );
    }
    expect(n).toBe(steps.size);
  });
});
