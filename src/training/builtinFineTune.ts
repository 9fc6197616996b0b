/**
 * The offline fine-tune of `builtin:learner` (`s3gym finetune --backend builtin`, learner.md): a real
 * parameter update from an SFT set. Per game it counts the tactic named on each kept example's
 * assistant answer (`Tactic:` line), weighted by epochs and added to the base checkpoint's counts,
 * and for chess it adds the displacement vectors of kept answers that scored themselves above 0 (what
 * the learner believed was a capture with a known vector). Bad judging poisons the set, and so the
 * prior: that is the pathway under study.
 */
import { modelIdentity } from "../runner/settings/runId.js";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseResponse } from "../agent/parseResponse.js";
import { messagesToPolicyContext } from "../agent/stepPrompt.js";
import { declaredTactic } from "../agent/trajectoryText.js";
import { CHECKPOINT_FORMAT, loadCheckpoint, writeCheckpoint, type LearnerCheckpoint } from "../builtin/learner/checkpoint.js";
import { mergeVectors } from "../builtin/learner/experienceText.js";
import { parseRulesTitle } from "../games/responseContract.js";
import { isGameName } from "../games/registry.js";
import { TACTIC_SETS } from "../games/tacticSets.js";
import { learnerName, parseModelSpec } from "../models/modelSpec.js";
import { parseSftExample, type SftFormat } from "./sftFormat.js";
import { readJsonlLines } from "../util/jsonl.js";
import type { OptionTable } from "../util/options.js";

/** The builtin backend's row of `s3gym finetune`: the data folder whose checkpoints/ the checkpoint is written into. */
export const BUILTIN_FINETUNE_OPTIONS: OptionTable<{ data: string }> = {
  data: { name: "data", kind: { type: "text", shown: "DIR", parse: (v: string) => v }, default: "data", help: "builtin: checkpoints go to DIR/checkpoints (default data)" },
};

export interface BuiltinFineTuneOptions {
  /** The SFT JSONL file (openai-chat or sharegpt). */
  train: string;
  /** The learner being improved: `builtin:learner[@ckpt][?judge=x]`. */
  model: string;
  epochs: number;
  /** Where the checkpoint file goes (content-addressed name). */
  outDir: string;
}

export interface BuiltinFineTuneResult {
  path: string;
  /** `builtin:learner@<path>[?judge=x]`: the base's judge carries over. */
  spec: string;
  examples: number;
  /** Kept examples per game whose answer named a tactic of that game. */
  counted: Record<string, number>;
}

/** Throws an Error naming the file/line or the option at fault. */
export function fineTuneBuiltin(o: BuiltinFineTuneOptions): BuiltinFineTuneResult {
  const spec = parseModelSpec(o.model);
  if (spec.scheme !== "builtin" || spec.policy !== "learner") throw new Error(`--model: the builtin backend fine-tunes builtin:learner[@ckpt][?judge=x], got '${o.model}'`);
  const base = (spec as { learner: { judge: number; checkpoint: string | null } }).learner;
  if (!Number.isInteger(o.epochs) || o.epochs < 1) throw new Error(`--epochs must be an integer >= 1, got ${o.epochs}`);
  const prev: LearnerCheckpoint | null = base.checkpoint ? loadCheckpoint(base.checkpoint) : null;
  const games: LearnerCheckpoint["games"] = structuredClone(prev?.games ?? {});
  const counted: Record<string, number> = {};
  let examples = 0;
  let format: SftFormat | null = null;
  const notJson = ({ line }: { line: number }): never => {
    throw new Error(`${o.train}:${line}: not JSON`);
  };
  for (const { line, json: value } of readJsonlLines(o.train, { onDamaged: notJson, onTorn: notJson })) {
    format ??= value && typeof value === "object" && "conversations" in value ? "sharegpt" : "openai-chat";
    let messages;
    try {
      messages = parseSftExample(value, format);
    } catch (e) {
      throw new Error(`${o.train}:${line}: ${(e as Error).message}`);
    }
    examples++;
    const answer = messages.at(-1);
    if (!answer || answer.role !== "assistant") continue;
    const prompt = messages.slice(0, -1);
    const title = parseRulesTitle(prompt.find((m) => m.role === "system")?.content ?? "");
    if (!title || !isGameName(title.game)) continue;
    const set = TACTIC_SETS[title.game];
    const tactic = declaredTactic(answer.content);
    if (!tactic || !set.tactics.some((t) => t.name === tactic)) continue;
    const g = (games[title.game] ??= { prior: {}, vectors: {} });
    g.prior[tactic] = (g.prior[tactic] ?? 0) + o.epochs;
    counted[title.game] = (counted[title.game] ?? 0) + 1;
    const parsed = parseResponse(answer.content);
    const ctx = messagesToPolicyContext(prompt);
    if (set.learn && ctx && parsed.action !== null && (parsed.selfScore ?? 0) > 0) {
      // The learner scores a move above 0 only when it believes it captures with a known vector.
      const learned = set.learn([{ observation: ctx.observation, action: parsed.action, feedback: "moved" }]).vectors;
      g.vectors = mergeVectors(g.vectors, learned);
    }
  }
  if (examples === 0) throw new Error(`${o.train}: no examples`);
  // The file's bytes, as the checkpoint records them.
  const sha256 = createHash("sha256").update(readFileSync(o.train)).digest("hex");
  // The base by its identity (a content-addressed checkpoint by its file name): the new file's name,
  // a hash of its content, must not depend on the folder the data lives in.
  const ck: LearnerCheckpoint = { format: CHECKPOINT_FORMAT, base: modelIdentity(o.model), epochs: o.epochs, sft: { sha256, examples }, games };
  const path = writeCheckpoint(o.outDir, ck);
  return { path, spec: `builtin:${learnerName({ judge: base.judge, checkpoint: path })}`, examples, counted };
}
