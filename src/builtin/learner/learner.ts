/**
 * `builtin:learner` (learner.md): the kit's positive control. It decides from the prompt TEXT alone
 * (rules, experience block, the episode's earlier turns, the observation), in process or over HTTP:
 *
 *   tactic   the one its earlier replies in this episode named; else chosen from the experience:
 *            per visible earlier episode, its tactic and the sum of its OWN self-scores (chooseTactic),
 *            exploring only in an exploration-role episode (greedy in every evaluation role)
 *   action   that tactic's policy, with knowledge from every visible earlier episode, the memory
 *            and the checkpoint: chess's displacement vectors, trust's opponents met before
 *   score    with probability `judge` the tactic's fair text-only estimate, else a uniform draw from
 *            the game's estimate range (an uninformed judge)
 *
 * Every draw comes from the call's seed (the request's `seed`; in process the call identity's).
 */
import { isSummaryRequest } from "../../agent/summaryPrompt.js";
import { builtinJudgeAnswer, isJudgeRequest } from "../../agent/judgePrompt.js";
import { messagesToPolicyContext } from "../../agent/stepPrompt.js";
import { declaredTactic } from "../../agent/trajectoryText.js";
import { parseRulesTitle } from "../../games/responseContract.js";
import { findTactic, tacticNames, type TacticKnowledge, type TacticSet } from "../../games/tactics.js";
import { TACTIC_SETS } from "../../games/tacticSets.js";
import { isGameName } from "../../games/registry.js";
import type { LearnerOptions } from "../../models/modelSpec.js";
import type { ChatMessage } from "../../models/types.js";
import { BoundedCache } from "../../util/boundedCache.js";
import { Rng } from "../../util/rng.js";
import { loadCheckpoint, type LearnerCheckpoint } from "./checkpoint.js";
import { chooseTactic } from "./choose.js";
import { experienceOf, mergeKnowledge, parseEpisodeBlocks, parseMemoryText, round3, splitRetrieved, statsFromEpisodes, type SeenEpisode, type TacticStats, type Vectors } from "./experienceText.js";
import { learnerSummary } from "./summary.js";
import { learnerRoleAnswer } from "./roles/index.js";
import { readVerifiedFacts } from "./roles/memory.js";

/** The generator of one purpose of one call: from the call's seed, or (no seed: a bare HTTP request) from the prompt. */
function callRng(purpose: string, seed: number | undefined, messages: readonly ChatMessage[]): Rng {
  if (seed !== undefined) return Rng.fromKey(`learner|${purpose}|seed|${seed}`);
  const last = messages.at(-1)?.content ?? "";
  return Rng.fromKey(`learner|${purpose}|${messages.length}|${last}`);
}

/** What the experience block says: tactic statistics and knowledge (chess rules, trust opponents). */
export function readExperience(experience: string, learn: TacticSet["learn"]): { stats: TacticStats; knowledge: Required<TacticKnowledge> } {
  const { blocks, rest } = splitBlocks(experience);
  const parsed = blocks.map((b) => parsedBlock(b, learn));
  // The hybrid pathway's retrieved steps follow its summary (pathways/hybrid.ts).
  const retrieved = splitRetrieved(rest);
  const memory = parseMemoryText(retrieved.memory);
  // A verified memory's facts (roles/memory.ts) count like a summary's statistics.
  const verified = readVerifiedFacts(retrieved.memory);
  for (const [t, v] of verified.stats) if (!memory.stats.has(t)) memory.stats.set(t, v);
  const stats = statsFromEpisodes(
    parsed.map((p) => p.episode),
    memory.stats,
  );
  // Retrieved steps are single steps, not episodes: they add no tactic statistics, only the rule
  // knowledge one step's move and feedback carry (chess: a displacement known legal or illegal).
  // Trust's opponent knowledge needs a whole episode's moves, so a lone step adds none.
  const fromSteps = learn ? retrieved.steps.map((s) => ({ vectors: learn([s]).vectors })) : [];
  return { stats, knowledge: mergeKnowledge(memory, { vectors: verified.vectors }, ...parsed.map((p) => p.knowledge), ...fromSteps) };
}

/**
 * readExperience of a first user message's experience block, memoised: every step of an episode
 * repeats the same first message, and reading a long History block is linear in its length. Kept by
 * the message object first (the runner's prompts reuse one object per turn, stepPrompt.ts; checked
 * against its content): many episodes are in flight at once (every run of a job, every evaluation
 * episode of a checkpoint), each with its own first message, which a few text-keyed entries could
 * not hold (they missed at most steps of a views job). The text-keyed table serves messages from
 * outside (`s3gym serve`), where an HTTP client's episode comes one request after another.
 * The result is only read (chooseTactic, mergeKnowledge copy what they use).
 */
type ExperienceRead = ReturnType<typeof readExperience>;
const experienceByMessage = new WeakMap<ChatMessage, { content: string; learn: TacticSet["learn"]; read: ExperienceRead }>();
const experienceMemo = new BoundedCache<string, { learn: TacticSet["learn"]; read: ExperienceRead }>(8);

function experienceRead(firstUser: ChatMessage | undefined, learn: TacticSet["learn"]): ExperienceRead {
  if (firstUser === undefined) return readExperience("", learn);
  const own = experienceByMessage.get(firstUser);
  if (own !== undefined && own.content === firstUser.content && own.learn === learn) return own.read;
  const text = firstUser.content;
  const hit = experienceMemo.get(text);
  let read: ExperienceRead;
  if (hit !== undefined && hit.learn === learn) read = hit.read;
  else {
    read = readExperience(experienceOf(text), learn);
    experienceMemo.set(text, { learn, read });
  }
  experienceByMessage.set(firstUser, { content: text, learn, read });
  return read;
}

/**
 * The experience's knowledge merged with a checkpoint's vectors, once per (read, checkpoint vectors):
 * every step of an episode holds the same read and the same checkpoint, and merging sorts and copies
 * every vector list again. The tactics only read their knowledge (chess's learn and trust's priorFrom
 * copy what they use), so one merged object serves every step.
 */
const mergedKnowledge = new WeakMap<ExperienceRead["knowledge"], { ck: Vectors | undefined; merged: Required<TacticKnowledge> }>();

function knowledgeWith(read: ExperienceRead["knowledge"], ckVectors: Vectors | undefined): Required<TacticKnowledge> {
  const hit = mergedKnowledge.get(read);
  if (hit !== undefined && hit.ck === ckVectors) return hit.merged;
  const merged = mergeKnowledge(read, { vectors: ckVectors });
  mergedKnowledge.set(read, { ck: ckVectors, merged });
  return merged;
}

const HEADER_START = "=== Exploration episode ";
/** Parsed blocks by their text: the same blocks return at every step of an episode and of later ones. */
const blockCache = new BoundedCache<string, { episode: SeenEpisode; knowledge: TacticKnowledge | undefined }>(4096);

function parsedBlock(text: string, learn: TacticSet["learn"]): { episode: SeenEpisode; knowledge: TacticKnowledge | undefined } {
  return blockCache.getOrSet(text, () => {
    const episode = parseEpisodeBlocks(text)[0] ?? { episode: 0, tactic: null, selfReturn: 0, steps: [], truncated: false };
    return { episode, knowledge: learn ? learn(episode.steps) : undefined };
  });
}

/** Cuts an experience text at its History block headers (indexOf only: linear and fast); the rest is memory text. */
export function splitBlocks(text: string): { blocks: string[]; rest: string } {
  const starts: number[] = [];
  let i = text.startsWith(HEADER_START) ? 0 : text.indexOf(`\n${HEADER_START}`);
  while (i >= 0) {
    const at = text[i] === "\n" ? i + 1 : i;
    starts.push(at);
    i = text.indexOf(`\n${HEADER_START}`, at);
  }
  if (starts.length === 0) return { blocks: [], rest: text };
  const blocks = starts.map((s, k) => text.slice(s, k + 1 < starts.length ? starts[k + 1]! : text.length));
  return { blocks, rest: text.slice(0, starts[0]) };
}

/**
 * An uninformed judge's self-score: uniform on [-w, w], w the width of the game's estimate range.
 * Centred on 0 so that an episode's SUM of such scores says nothing about the episode either (a draw
 * from [lo, hi] with lo >= 0 would grow with the episode's length, and lasting longer is what the
 * better tactics do: the sum would leak their quality).
 */
export function uninformedScore(range: readonly [number, number], rng: Rng): number {
  const w = range[1] - range[0];
  return -w + rng.float() * 2 * w;
}

export interface LearnerAnswer {
  text: string;
  tactic: string;
  why: string;
}

/**
 * The learner's reply to a step prompt (or its summary for a summary prompt); null when the messages
 * are neither (the server answers 400).
 */
export function answerLearner(messages: readonly ChatMessage[], options: LearnerOptions, seed?: number, role?: EpisodeRole): string | null {
  if (isSummaryRequest(messages)) return learnerSummary(messages);
  if (isJudgeRequest(messages)) return builtinJudgeAnswer();
  // The verified pathway's curriculum and verifier roles (roles/): answered before the step path.
  const roleAnswer = learnerRoleAnswer(messages);
  if (roleAnswer !== null) return roleAnswer;
  return learnerStep(messages, options, seed, role)?.text ?? null;
}

/**
 * Whether the episode explores or is evaluated: the protocol's role of the episode (the call
 * identity's `phase`), which comes with the request like the seed. SEAGym's id and replay views play
 * the explore config in an evaluation role, so the config's name is not the role; it stands in only
 * when no role came with the request (a bare HTTP request: only the messages and the seed travel).
 */
export type EpisodeRole = "explore" | "eval";

export function learnerStep(messages: readonly ChatMessage[], options: LearnerOptions, seed?: number, role?: EpisodeRole): LearnerAnswer | null {
  const ctx = messagesToPolicyContext(messages);
  if (!ctx) return null;
  const title = parseRulesTitle(ctx.rules);
  if (!title || !isGameName(title.game)) return null;
  const set = TACTIC_SETS[title.game];
  const names = tacticNames(set);
  const ck: LearnerCheckpoint | null = options.checkpoint !== null ? loadCheckpoint(options.checkpoint) : null;
  const fromCk = ck?.games[title.game];
  const exp = experienceRead(
    messages.find((m) => m.role === "user"),
    set.learn,
  );

  // The tactic this episode's earlier replies named (the episode keeps one tactic).
  const firstOwn = messages.find((m) => m.role === "assistant");
  const named = firstOwn ? declaredTactic(firstOwn.content) : null;
  let tactic = named && findTactic(set, named) ? named : null;
  let why = "the tactic this episode's earlier replies named";
  if (!tactic) {
    const phase: EpisodeRole = role ?? (title.configName === "eval" ? "eval" : "explore");
    const prior = fromCk && Object.values(fromCk.prior).some((x) => x > 0) ? fromCk.prior : null;
    ({ tactic, why } = chooseTactic(names, exp.stats, phase, prior, callRng("choose", seed, messages)));
  }
  const t = findTactic(set, tactic)!;
  const knowledge = set.learn ? knowledgeWith(exp.knowledge, fromCk?.vectors) : {};
  const d = t.policy(ctx, callRng("act", seed, messages), knowledge);
  const judgeRng = callRng("judge", seed, messages);
  const score = judgeRng.float() < options.judge ? d.selfScore : uninformedScore(set.scoreRange, judgeRng);
  return { text: `Tactic: ${tactic}\nAnswer: ${d.action}\nScore: ${round3(score)}`, tactic, why };
}
