/**
 * The verifier role of the `verified` pathway (verified.md, "Roles"): after an exploration episode a
 * separate call reads the episode's VISIBLE trajectory (observations, actions, feedback and the
 * actor's own self-scores; never the verifier reward or score) and returns a structured verdict:
 *
 *   Outcome: success | failure | uncertain
 *   Fact: <condition> | <action> | <effect> | steps <n>[,<n>...]
 *
 * Parsing is strict and linear: the last `Outcome:` line outside `<think>` blocks decides; every
 * non-empty line after it must be a well-formed `Fact:` line whose step numbers exist in the episode.
 * Anything else rejects the whole reply (the pathway logs it and keeps its memory).
 */
import type { ChatMessage } from "../models/types.js";
import { dropThinkBlocks, trimMarks } from "./replyText.js";

export const VERIFIER_TITLE = "# S3Gym verifier";
export const OUTCOMES = ["success", "failure", "uncertain"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** A causal fact: in condition C, action A led to effect E, seen at these (1-based) steps. */
export interface CausalFact {
  condition: string;
  action: string;
  effect: string;
  steps: number[];
}

export interface Verdict {
  outcome: Outcome;
  facts: CausalFact[];
}

/** Longest accepted fact field: a verdict is a note, not an essay (and it bounds the memory). */
export const FACT_FIELD_MAX = 200;
/** Most facts one verdict may state. */
export const FACTS_MAX = 24;

export interface VerifierInput {
  /** The rules text the episode was played under (its variant's). */
  rules: string;
  /** The episode's trajectory as History ICL writes it (renderTrajectory: no reward, no score). */
  trajectory: string;
  /** Steps in the episode: fact step numbers must lie in 1..steps. */
  steps: number;
  /** What counts as success (the game's success threshold, in the game's score units). */
  successCriterion: string;
  /** true when the run's judge is `none` (docs/judging.md): the trajectory shows no scores, and the prompt says so. */
  scoresWithheld?: boolean;
}

export function buildVerifierMessages(input: VerifierInput): ChatMessage[] {
  const system = [
    VERIFIER_TITLE,
    "You verify one episode of the game below that an agent has just played. You see what the agent saw:",
    ...(input.scoresWithheld === true
      ? ["each observation, its action and the game's visible feedback (its self-scores are withheld). You never see the"]
      : ["each observation, its action, its own self-score and the game's visible feedback. You never see the"]),
    "real reward or score. Judge from the evidence in the trajectory only.",
    `Success: ${input.successCriterion}`,
    "Reply with one line `Outcome: success`, `Outcome: failure` or `Outcome: uncertain` (uncertain when the",
    "trajectory does not show which), followed by at most " + FACTS_MAX + " causal facts the trajectory supports, one per line:",
    "Fact: <condition> | <action> | <effect> | steps <n>,<n>",
    "meaning: in <condition>, <action> led to <effect>, as seen at those step numbers (the `--- Step n ---` headers).",
    `Each field is plain text without '|' (at most ${FACT_FIELD_MAX} characters). Write nothing after the facts.`,
  ].join("\n");
  const user = [`<rules>\n${input.rules}\n</rules>`, `<steps>${input.steps}</steps>`, `<trajectory>\n${input.trajectory}\n</trajectory>`].join("\n\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

export function isVerifierRequest(messages: readonly ChatMessage[]): boolean {
  return messages.some((m) => m.role === "system" && m.content.startsWith(VERIFIER_TITLE));
}

/** The parts of a verifier prompt a built-in verifier reads (null when the prompt is not one). */
export function readVerifierPrompt(messages: readonly ChatMessage[]): { rules: string; trajectory: string; steps: number; successCriterion: string } | null {
  if (!isVerifierRequest(messages)) return null;
  const system = messages.find((m) => m.role === "system")!.content;
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  const criterionLine = system.split("\n").find((l) => l.startsWith("Success: "));
  const steps = Number(tagged(user, "steps"));
  return { rules: tagged(user, "rules"), trajectory: tagged(user, "trajectory"), steps: Number.isInteger(steps) ? steps : 0, successCriterion: criterionLine?.slice("Success: ".length) ?? "" };
}

/** The text between `<tag>\n` and the last `\n</tag>` (indexOf: linear). */
export function tagged(text: string, tag: string): string {
  const open = `<${tag}>`;
  const start = text.indexOf(open);
  const end = text.lastIndexOf(`</${tag}>`);
  if (start < 0 || end < start + open.length) return "";
  return text
    .slice(start + open.length, end)
    .replace(/^\n/, "")
    .replace(/\n$/, "");
}

export type VerdictParse = { ok: true; verdict: Verdict } | { ok: false; error: string };

const OUTCOME_LINE = /^outcome:\s*([a-z]+)\s*$/i;

/** Parses a verifier reply for an episode of `steps` steps. Total: a verdict or the reason it was rejected. */
export function parseVerdict(reply: string, steps: number): VerdictParse {
  const lines = dropThinkBlocks(reply).split("\n").map(trimMarks);
  let at = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^outcome:/i.test(lines[i]!)) {
      at = i;
      break;
    }
  }
  if (at < 0) return { ok: false, error: "no `Outcome:` line" };
  const m = OUTCOME_LINE.exec(lines[at]!);
  const outcome = m?.[1]?.toLowerCase();
  if (!outcome || !(OUTCOMES as readonly string[]).includes(outcome)) return { ok: false, error: `line ${at + 1}: outcome must be success, failure or uncertain` };
  const facts: CausalFact[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const f = parseFactLine(line, steps);
    if (typeof f === "string") return { ok: false, error: `line ${i + 1}: ${f}` };
    facts.push(f);
    if (facts.length > FACTS_MAX) return { ok: false, error: `more than ${FACTS_MAX} facts` };
  }
  return { ok: true, verdict: { outcome: outcome as Outcome, facts } };
}

/** One `Fact:` line, or why it is malformed. */
export function parseFactLine(line: string, steps: number): CausalFact | string {
  if (!/^fact:/i.test(line)) return "expected a `Fact: <condition> | <action> | <effect> | steps <n>,...` line";
  const parts = line
    .slice(5)
    .split("|")
    .map((p) => p.trim());
  if (parts.length !== 4) return `a fact has 4 fields separated by '|', got ${parts.length}`;
  const [condition, action, effect, support] = parts as [string, string, string, string];
  for (const [name, v] of [
    ["condition", condition],
    ["action", action],
    ["effect", effect],
  ] as const) {
    if (v === "") return `the fact's ${name} is empty`;
    if (v.length > FACT_FIELD_MAX) return `the fact's ${name} is longer than ${FACT_FIELD_MAX} characters`;
  }
  const sm = /^steps?\s+(\d{1,6}(?:\s*,\s*\d{1,6})*)$/i.exec(support);
  if (!sm) return "the fact's last field must be `steps <n>,<n>...`";
  const nums = [...new Set(sm[1]!.split(",").map((s) => Number(s.trim())))].sort((a, b) => a - b);
  const bad = nums.find((n) => n < 1 || n > steps);
  if (bad !== undefined) return `step ${bad} is not a step of this episode (1..${steps})`;
  return { condition, action, effect, steps: nums };
}

/** The verdict as a reply (what a built-in verifier writes; parseVerdict reads it back). */
export function formatVerdict(v: Verdict): string {
  return [`Outcome: ${v.outcome}`, ...v.facts.map((f) => `Fact: ${f.condition} | ${f.action} | ${f.effect} | steps ${f.steps.join(",")}`)].join("\n");
}
