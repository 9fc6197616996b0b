/**
 * One episode as a Harbor Agent Trajectory Interchange Format document (ATIF, Harbor RFC 0001,
 * version v1.7: docs/interop.md). Pure: plain data in, one plain object out.
 *
 * The conversation as the model received it: a `system` step (the rules), a `user` step (the first
 * prompt: experience and first observation), then per game step an `agent` step (the reply as
 * received, its reasoning, tokens; the game's feedback as its observation; the action, self-score
 * and hidden reward in `extra`) followed by a `user` step holding the next prompt's newest message
 * as sent. The action is not a tool call (the kit's games read an `Answer:` line), so no step has
 * `tool_calls`.
 */
import { judgeSteps } from "../../analysis/metrics/judging.js";
import { isSolved } from "../../games/successThreshold.js";
import type { ChatMessage } from "../../models/types.js";
import { sampleEpoch, sampleId, type EpisodeInput } from "./inspectLog.js";

/** The ATIF version written (`schema_version`). */
export const ATIF_VERSION = "ATIF-v1.7";

type Json = Record<string, unknown>;

/** What the trajectory records about the run. */
export interface AtifRun {
  run_id: string;
  game: string;
  pathway: string;
  kit_version: string;
}

/** The file name (without folder) of an episode's trajectory. */
export function atifFileName(head: { phase: string; view?: string | undefined; episode: number; seed: number; checkpoint: number | null }): string {
  return `${sampleId(head)}-epoch${sampleEpoch(head)}.json`;
}

/** One episode as an ATIF trajectory. */
export function atifTrajectory(run: AtifRun, e: EpisodeInput): Json {
  const head = e.record ?? e.steps[0];
  if (head === undefined) throw new Error("an episode with neither a record nor steps");
  const view = head.phase === "explore" ? "explore" : ((head as { view?: string }).view ?? "eval");
  const rebuilt = typeof e.prompts !== "string";
  const promptOf = new Map(rebuilt ? (e.prompts as { step: number; messages: ChatMessage[] }[]).map((p) => [p.step, p.messages]) : []);
  const steps: Json[] = [];
  const push = (s: Json): void => {
    steps.push({ step_id: steps.length + 1, ...s });
  };
  e.steps.forEach((s, k) => {
    const messages = promptOf.get(s.step);
    if (k === 0) {
      const system = messages?.find((m) => m.role === "system");
      if (system) push({ source: "system", message: system.content });
      const firstUser = messages?.find((m) => m.role === "user");
      push({ source: "user", message: firstUser ? firstUser.content : s.observation, extra: { step: s.step, rebuilt: firstUser !== undefined } });
    } else {
      // The step's newest user message: the previous step's feedback and this step's observation, as sent.
      const newest = messages?.[messages.length - 1];
      push({ source: "user", message: newest && newest.role === "user" ? newest.content : s.observation, extra: { step: s.step, rebuilt: newest !== undefined } });
    }
    const reasoning = typeof s.reasoning === "string" && s.reasoning.length > 0 ? s.reasoning : null;
    push({
      source: "agent",
      model_name: e.model,
      message: s.response,
      ...(reasoning !== null ? { reasoning_content: reasoning } : {}),
      observation: { results: [{ content: s.feedback }] },
      metrics: {
        prompt_tokens: Math.round(s.tokens_in),
        completion_tokens: Math.round(s.tokens_out),
        ...(typeof s.tokens_cached === "number" ? { cached_tokens: Math.round(s.tokens_cached) } : {}),
      },
      llm_call_count: 1,
      extra: {
        step: s.step,
        action: s.action,
        parse_error: s.parse_error,
        valid: s.valid,
        self_score: s.self_score,
        reward: s.reward,
        score_after: s.score_after,
        done: s.done,
        latency_ms: s.latency_ms,
      },
    });
  });
  let tin = 0;
  let tout = 0;
  for (const s of e.steps) {
    tin += s.tokens_in;
    tout += s.tokens_out;
  }
  const judged = judgeSteps(
    e.steps.map((s) => ({ s: s.self_score, r: s.reward })),
    e.rewardRange,
  );
  const scored = e.steps.filter((s) => s.self_score !== null);
  const ok = e.record?.status === "ok";
  return {
    schema_version: ATIF_VERSION,
    session_id: run.run_id,
    trajectory_id: `${run.run_id}/${sampleId({ ...head, view })}/epoch${sampleEpoch(head)}`,
    agent: { name: "s3gym", version: run.kit_version, model_name: e.model, extra: { pathway: run.pathway } },
    steps,
    notes: rebuilt
      ? "Prompts rebuilt from the s3gym logs exactly as sent. The game action is read from the reply's Answer line, not a tool call; extra.reward is the verifier's step reward, hidden from the model."
      : `Prompts not rebuilt (${e.prompts as string}): user steps hold the observation alone. extra.reward is the verifier's step reward, hidden from the model.`,
    final_metrics: {
      total_prompt_tokens: Math.round(tin),
      total_completion_tokens: Math.round(tout),
      total_steps: steps.length,
      extra: { game_steps: e.steps.length },
    },
    extra: {
      run_id: run.run_id,
      game: run.game,
      pathway: run.pathway,
      phase: head.phase,
      view,
      config: head.config,
      checkpoint: head.checkpoint,
      episode: head.episode,
      seed: head.seed,
      status: e.record?.status ?? "unfinished",
      score: ok ? (e.record?.score ?? null) : null,
      solved: ok && e.successThreshold !== null && e.record ? isSolved(e.record.score, e.successThreshold) : null,
      mean_self_score: scored.length === 0 ? null : scored.reduce((a, s) => a + (s.self_score as number), 0) / scored.length,
      agreement: judged.agree,
      reward_sum: e.steps.reduce((a, s) => a + s.reward, 0),
    },
  };
}
