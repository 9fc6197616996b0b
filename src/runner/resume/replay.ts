/**
 * Rebuilds, from the logs alone, the exact messages a step's model call received (protocol.md:
 * "the exact context is reproducible from the logs"). It uses the same functions the runner used:
 * the manifest gives the protocol numbers and the game configs, steps.jsonl the earlier turns and the
 * exploration trajectories, episodes.jsonl the end states, and the pathway's own files (the kinds
 * its definition lists in `files`) what its `rebuild` rebuilds the experience from. Which files a
 * pathway writes is its definition's business: nothing here names one.
 */
import { resolveVariants } from "../loop/context.js";
import { buildStepMessages, earlierTurnOf, type EarlierTurn } from "../../agent/stepPrompt.js";
import type { Game } from "../../games/types.js";
import { EpisodeRecord, RUN_FILES, RunManifest, StepRecord, viewOf, type ViewName } from "../../logs/schema.js";
import type { ChatMessage } from "../../models/types.js";
import { TokenCounter } from "../../models/tokenCounter.js";
import { hybridOf } from "../../pathways/hybrid.js";
import { getPathway } from "../../pathways/registry.js";
import type { ExperienceSnapshot, OwnRecords, PathwayLogs, StepView } from "../../pathways/types.js";
import type { RunFileKind } from "../../logs/runDir.js";
import { readJsonFile, readRunFile } from "../../logs/reader.js";
import { manifestPath, runFile } from "../../logs/runDir.js";
import { manifestProtocol, settingsFromRecord } from "../settings/protocolRecord.js";

export interface RunLogData {
  manifest: RunManifest;
  steps: StepRecord[];
  episodes: EpisodeRecord[];
  /** The pathway's own files (its definition's `files`), whole, by kind: what its `rebuild` reads. */
  own: OwnRecords;
}

/** Reads one run directory (whole files: meant for one run, in tests and notebooks). */
export function loadRunLogs(dir: string): RunLogData {
  const manifest = readJsonFile(manifestPath(dir), RunManifest);
  const own: Partial<Record<RunFileKind, unknown[]>> = {};
  for (const file of getPathway(manifest.pathway).files) own[file] = readRunFile(runFile(dir, file), RUN_FILES[file].schema).lines.map((l) => l.value);
  return {
    manifest,
    steps: readRunFile(runFile(dir, "steps"), StepRecord).lines.map((l) => l.value),
    episodes: readRunFile(runFile(dir, "episodes"), EpisodeRecord).lines.map((l) => l.value),
    own: own as OwnRecords,
  };
}

export interface StepAddress {
  phase: "explore" | "eval";
  /** An eval step of the `id` or `replay` view (absent = `eval`). */
  view?: ViewName;
  checkpoint: number | null;
  episode: number;
  step: number;
}

/**
 * Per loaded run (the logs do not change once loaded): the pathway's view of the logs, the token
 * counter, the protocol record, each experience version's snapshot and each config's rules text,
 * made once. Rebuilding every step of a long run (BuildSFT, the viewer) then stays linear: the
 * pathway's own memos (History's blocks and joined texts, which it keys by the snapshot's block
 * array) live as long as the loaded run, and no step re-parses the protocol or re-renders the rules.
 */
interface ReplayMemo {
  logs: PathwayLogs;
  counter: TokenCounter;
  protocol: ReturnType<typeof manifestProtocol>;
  /** Snapshot of experience version k (History: one block array per version, so its memos hit). */
  snapshots: Map<number, ExperienceSnapshot>;
  /** Per snapshot, the text already built for each recorded-fields value (see stepExperience). */
  texts: WeakMap<ExperienceSnapshot, Map<string, string>>;
  /** Rules text per config name (`eval`, `explore`, a named variant). */
  rules: Map<string, string>;
}
const replayMemo = new WeakMap<RunLogData, ReplayMemo>();

function replayInputs(data: RunLogData): ReplayMemo {
  let memo = replayMemo.get(data);
  if (!memo) {
    const logs: PathwayLogs = { steps: data.steps, episodes: data.episodes, records: (file) => (data.own[file] ?? []) as never };
    const protocol = manifestProtocol(data.manifest);
    const counter = new TokenCounter(settingsFromRecord(protocol).tokenizer);
    replayMemo.set(data, (memo = { logs, counter, protocol, snapshots: new Map(), texts: new WeakMap(), rules: new Map() }));
  }
  return memo;
}

/** Distinct experience texts kept per snapshot: reuse is needed only from one step to the next (a whole History context each, so few). */
const TEXTS_PER_SNAPSHOT = 8;

/**
 * The snapshot's text for a step, one string object per (snapshot, recorded fields): a snapshot's
 * fields pin its text (pathways/types.ts, ExperienceSnapshot), so a step whose fields equal an
 * earlier step's reads the very string that step read. The prompt assembly downstream compares and
 * memoises by that string (stepPrompt.ts), which is then a pointer comparison instead of a
 * comparison of a whole History context at every step.
 */
function stepExperience(memo: ReplayMemo, snapshot: ExperienceSnapshot, view: StepView): string {
  const { text, fields } = snapshot.forStep(view);
  let byFields = memo.texts.get(snapshot);
  if (!byFields) memo.texts.set(snapshot, (byFields = new Map()));
  const key = JSON.stringify(fields);
  const seen = byFields.get(key);
  if (seen !== undefined && seen.length === text.length) return seen;
  if (byFields.size >= TEXTS_PER_SNAPSHOT) byFields.clear();
  byFields.set(key, text);
  return text;
}

/** The experience text of a step, rebuilt by the run's pathway from the logs. */
export function rebuildExperience(data: RunLogData, at: StepAddress, view: { rules: string; turns: EarlierTurn[]; observation: string }, loggedVersion?: number): string {
  // A memory probe's checkpoints read no experience, or its donor's (runner/probe/memoryProbe.ts).
  const probe = data.manifest.probe;
  if (probe && at.phase === "eval") {
    if (!probe.donor) return "";
    data = donorLogData(data, probe.donor.dir);
  }
  const memo = replayInputs(data);
  const settings = settingsFromRecord(memo.protocol);
  // Experience Z_k: explore episode x reads Z_{x-1} (or, in a verified broad batch, the version before
  // the batch, which its steps record as memory_version); checkpoint c reads Z_c.
  const k = at.phase === "explore" ? (loggedVersion ?? at.episode - 1) : at.checkpoint!;
  const ctx = {
    settings: {
      contextTokens: settings.contextTokens,
      maxNewTokens: settings.maxNewTokens,
      tokenizer: settings.tokenizer,
      ...(settings.historyCut ? { historyCut: settings.historyCut } : {}),
      ...hybridOf(settings),
    },
    counter: memo.counter,
  };
  let snapshot = memo.snapshots.get(k);
  if (!snapshot) {
    const pathway = getPathway(data.manifest.pathway);
    memo.snapshots.set(k, (snapshot = pathway.snapshot(pathway.rebuild(memo.logs, k, ctx), ctx)));
  }
  return stepExperience(memo, snapshot, { ...view, rewardVisibility: settings.rewardVisibility });
}

const donors = new WeakMap<RunLogData, RunLogData>();
/** A probe's donor run, loaded once per loaded probe run. */
function donorLogData(probe: RunLogData, dir: string): RunLogData {
  let d = donors.get(probe);
  if (!d) donors.set(probe, (d = loadRunLogs(dir)));
  return d;
}

/** The messages of the model call of step `at`, rebuilt from the logs. */
export function rebuildStepMessages(data: RunLogData, game: Game, at: StepAddress): ChatMessage[] {
  const own = episodeSteps(data, at);
  const k = own.findIndex((s) => s.step === at.step);
  if (k < 0) throw new Error(`step ${JSON.stringify(at)} is not in steps.jsonl`);
  return messagesAt(data, game, at, turnsOf(own, keepThink(data)).slice(0, k), own[k]!);
}

/**
 * The messages of every step of one episode (in step order, one list per logged step), rebuilt from
 * the logs: rebuildStepMessages for each step, with the episode's steps gathered once and each
 * earlier turn one object throughout, in ONE turns array grown by a turn per step, as in a live
 * episode: the History budget counts every turn once (its token counts are memoised per turn
 * object) and the anchored cut resumes its walk over the episode (keyed by that array), so a whole
 * episode costs what playing it did. `own`, when given, is the episode's logged steps in step order
 * (the caller already holds them; else they are gathered from `data.steps`).
 */
export function rebuildEpisodeMessages(data: RunLogData, game: Game, at: Omit<StepAddress, "step">, own?: readonly StepRecord[]): { step: number; messages: ChatMessage[] }[] {
  const steps = own ?? episodeSteps(data, { ...at, step: 0 });
  const turns = turnsOf(steps, keepThink(data));
  const live: EarlierTurn[] = [];
  return steps.map((s, k) => {
    const messages = messagesAt(data, game, { ...at, step: s.step }, live, s);
    live.push(turns[k]!);
    return { step: s.step, messages };
  });
}

/** The logged steps of the episode of `at`, in step order. */
function episodeSteps(data: RunLogData, at: StepAddress): StepRecord[] {
  return data.steps.filter((s) => s.phase === at.phase && viewOf(s) === (at.view ?? "eval") && s.checkpoint === at.checkpoint && s.episode === at.episode).sort((a, b) => a.step - b.step);
}

/** Whether the run replayed earlier turns' think blocks (`--keep-think`); by default they were dropped. */
function keepThink(data: RunLogData): boolean {
  return replayInputs(data).protocol.think_replay === "keep";
}

/** Each step of an episode as an earlier turn of the steps after it, built as the live episode built it. */
function turnsOf(own: readonly StepRecord[], keep: boolean): EarlierTurn[] {
  return own.map((s) => earlierTurnOf(s, keep));
}

/** The rules text of a config (`eval`, `explore`) or of a named explore variant, rendered once per loaded run. */
function rulesOf(data: RunLogData, game: Game, memo: ReplayMemo, configName: "eval" | "explore", variant: string | null): string {
  const key = `${game.name}\u0000${variant ?? ""}\u0000${configName}`;
  let rules = memo.rules.get(key);
  if (rules === undefined) {
    const v = variant !== null ? resolveVariants(game, memo.protocol.max_steps)[variant] : undefined;
    rules = v ? v.rules : game.rules(memo.protocol.game_configs[configName] as never, configName);
    memo.rules.set(key, rules);
  }
  return rules;
}

/** `turns` is read, not kept: the caller may grow it after this returns (rebuildEpisodeMessages). */
function messagesAt(data: RunLogData, game: Game, at: StepAddress, turns: EarlierTurn[], target: StepRecord): ChatMessage[] {
  const memo = replayInputs(data);
  const protocol = memo.protocol;
  // The id and replay views play the explore config (runner/loop/views.ts).
  const configName = at.phase === "explore" || (at.view ?? "eval") !== "eval" ? "explore" : "eval";
  // An exploration episode a pathway played on a named explore variant (verified) read that variant's rules.
  const rules = rulesOf(data, game, memo, configName, at.phase === "explore" && target.config !== "explore" ? target.config : null);
  const view = { rules, turns, observation: target.observation };
  // A pathway that plans its exploration plays a batch from one version: its steps record which.
  const plans = getPathway(data.manifest.pathway).exploration !== undefined;
  const experience = rebuildExperience(data, at, view, plans ? target.memory_version : undefined);
  // The earliest turns the step left out to fit the context (episodeRunner.ts fitStep), as it recorded.
  const dropped = target.turns_dropped ?? 0;
  return buildStepMessages({ ...view, turns: dropped > 0 ? turns.slice(dropped) : turns, experience, rewardVisibility: protocol.reward_visibility });
}
