/**
 * The evaluation memo of one run: an evaluation episode whose complete inputs equal those of an
 * episode this run already played is written again from that play instead of calling the model and
 * stepping the game (docs/runner.md, "Evaluation memo").
 *
 * Why it is exact: with a deterministic model (Model.deterministic: a built-in without independent
 * noise, no models-file sampling) a step's reply is a function of its messages, its seed and the live
 * game state. An evaluation step's seed depends on the model, game, run seed, episode seed, step and
 * view alone (evalCallSeed: the same at every checkpoint); its messages on the config's rules, the
 * episode's earlier turns, the observation and the experience text; the game is a pure function of
 * its seed and the actions. So when the same slot (view, episode, seed) reads, at every step, the same
 * experience text as a recorded play, by induction every step is that play's: the same reply, action,
 * observation and records. The memo checks exactly that (the experience snapshot asked at every
 * recorded step), and rewrites only what names the replaying episode: its checkpoint and the
 * experience's own fields (memory_version, history_keep: the record's, never the prompt's).
 *
 * Everything a play does still happens, in the same order: one macrotask turn per step where the model
 * call had its own (so concurrent episodes interleave their lines as they would), the calls.jsonl line
 * first, the reply monitor (a run that trips degenerate stops the replay at the same step), the step
 * line, the progress events; the episode's end is the runner's own code. The memo lives in memory
 * only: a resumed run starts it empty.
 *
 * Following. An episode whose slot is still being played (a run that replays its exploration, a
 * rejudge or a memory probe, starts every checkpoint's evaluation at once, so no play of a slot has
 * ended when the next checkpoint's begins) follows that play (the leader) step by step instead: at
 * step k it asks its own experience for the text, with its own earlier turns and the leader's
 * observation at step k, and follows only when the text and the fields' keys equal what the leader's
 * step k read; by the same induction its messages, seed and game state are the leader's, so the
 * leader's reply, action and records are its own, checkpoint and experience fields aside. Where the
 * text differs (or the leader stopped before step k), it plays step k and the rest itself, from the
 * game state the followed actions lead to. The timing is a play's: the leader publishes step k's
 * inputs just before its model call, which takes its macrotask turn at once (a built-in's first
 * act), so the follower, asking after that, takes its own turn after the leader's and finds the
 * leader's answer in: one turn per step, the call line, the reply monitor and the step line, as its
 * play would. Should the answer be missing all the same (a leader whose call failed), the follower
 * plays the step: the records stay exact, only that step takes a turn more.
 */
import { earlierTurnOf, type EarlierTurn } from "../../agent/stepPrompt.js";
import type { ReplyKind } from "../../agent/reply.js";
import type { CallRecord, StepRecord } from "../../logs/schema.js";
import type { Model } from "../../models/types.js";
import type { StepView } from "../../pathways/types.js";
import type { ReplyInfo } from "../monitor/replyMonitor.js";
import type { ExtraView } from "../settings/protocolSettings.js";

/** One step of a recorded play, with what its model call and reply monitor saw. */
export interface MemoStep {
  record: StepRecord;
  /** The experience text its prompt carried, and the keys (in order) of the fields its record got. */
  experience: string;
  fieldKeys: string[];
  call: CallRecord;
  kind: ReplyKind;
  info: ReplyInfo;
}

/** A recorded play: its steps, and what the episode's end reads of its final state. */
export interface MemoEpisode {
  steps: MemoStep[];
  score: number;
  endObservation: string;
}

/** What a replay writes at each step: the recorded step, with this episode's experience fields. */
export interface ReplayStep {
  step: MemoStep;
  fields: Record<string, unknown>;
}

/** A recorded play as this episode replays it. */
export interface Replay {
  steps: ReplayStep[];
  score: number;
  endObservation: string;
}

/** What a step of a play in progress read, published just before its model call. */
export interface LiveTop {
  observation: string;
  experience: string;
  fieldKeys: string[];
}

/** A play of a slot in progress, as a later episode of the slot follows it (see "Following" above). */
export interface LivePlay {
  /** Per step, its prompt's observation and experience, set just before the step's model call. */
  tops: LiveTop[];
  /** Its steps so far as the memo records them (the play's own list, grown as it plays). */
  steps: MemoStep[];
  /** Its end, once it ended ok with every step recorded. */
  end: { score: number; endObservation: string } | null;
}

/** Where a call line of an evaluation step is filed until its step takes it. */
function callKey(checkpoint: number | null, view: string | undefined, episode: number | null, step: number | null): string {
  return `${checkpoint}|${view ?? "eval"}|${episode}|${step}`;
}

export class EvalMemo {
  /** The latest ok play of each slot (view, episode, seed). */
  private readonly plays = new Map<string, MemoEpisode>();
  /** Call lines of evaluation steps not yet taken by their step. */
  private readonly calls = new Map<string, CallRecord>();
  /** The play of each slot in progress that later episodes of the slot follow. */
  private readonly live = new Map<string, LivePlay>();

  constructor(
    /** The model the plays are of: another (a checkpoint list's next model) never reads them. */
    readonly model: Model,
    /** Writes a call line as the call router does (calls.jsonl, then the call event). */
    readonly writeCall: (record: CallRecord) => void,
  ) {}

  /** The call router's tap: keeps the call lines of evaluation steps. */
  observeCall(record: CallRecord): void {
    if (record.purpose === "step" && record.phase === "eval") this.calls.set(callKey(record.checkpoint, record.view, record.episode, record.step), record);
  }

  /** The call line of an evaluation step just answered (taken: kept no longer). */
  takeCall(checkpoint: number | null, view: ExtraView | undefined, episode: number, step: number): CallRecord | undefined {
    const key = callKey(checkpoint, view, episode, step);
    const r = this.calls.get(key);
    this.calls.delete(key);
    return r;
  }

  static slot(view: ExtraView | undefined, episode: number, seed: number): string {
    return `${view ?? "eval"}|${episode}|${seed}`;
  }

  /** Records an ok play of `slot` (the latest wins: a pathway whose experience settles repeats the newest). */
  store(slot: string, play: MemoEpisode): void {
    this.plays.set(slot, play);
  }

  /** The play of `slot` in progress, if any. */
  inProgress(slot: string): LivePlay | undefined {
    return this.live.get(slot);
  }

  /** Makes a play of `slot` the one later episodes follow; `steps` is its own list of recorded steps. */
  lead(slot: string, steps: MemoStep[]): LivePlay {
    const play: LivePlay = { tops: [], steps, end: null };
    this.live.set(slot, play);
    return play;
  }

  /** A leader's end: `end` when it ended ok with every step recorded (else followers play on their own). */
  ended(slot: string, play: LivePlay, end: LivePlay["end"]): void {
    play.end = end;
    if (this.live.get(slot) === play) this.live.delete(slot);
  }

  /**
   * The recorded play of `slot` when this episode's experience gives every one of its steps the same
   * text (the fields' keys in the same order), with this episode's fields per step; else null.
   */
  find(slot: string, base: Omit<StepView, "turns" | "observation">, experience: (view: StepView) => { text: string; fields: Record<string, unknown> }, keepThink: boolean): Replay | null {
    const play = this.plays.get(slot);
    if (!play) return null;
    const turns: EarlierTurn[] = [];
    const out: ReplayStep[] = [];
    for (const step of play.steps) {
      const e = experience({ rules: base.rules, turns: [...turns], observation: step.record.observation, rewardVisibility: base.rewardVisibility });
      if (e.text !== step.experience) return null;
      const keys = Object.keys(e.fields);
      if (keys.length !== step.fieldKeys.length || keys.some((k, i) => k !== step.fieldKeys[i])) return null;
      out.push({ step, fields: e.fields });
      turns.push(earlierTurnOf(step.record, keepThink));
    }
    // The play itself, not the slot: a later play may take the slot while this one is replayed.
    return { steps: out, score: play.score, endObservation: play.endObservation };
  }
}
