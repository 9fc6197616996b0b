/**
 * The training loop (`s3gym train-loop`), for local trainers (TRL, LLaMA-Factory with a vLLM server):
 *
 *   evaluate M0 as epoch 0                         (overlaps round 1's exploration)
 *   for r in 1..K:
 *     explore with M_{r-1}                         per game: N exploration episodes, no experience
 *     build-sft on round r's exploration           -> round-r/sft.jsonl
 *     run the trainer command                      -> prints M_r on its last stdout line
 *     evaluate M_r as epoch r                      (overlaps round r+1's exploration)
 *
 * Layout under the data directory DIR:
 *   DIR/runs/<game>__training__<label>...           the checkpoint-list evaluation (epoch r = M_r):
 *                                                   what `s3gym report --data DIR` turns into training.csv
 *   DIR/train-loop/<label slug>/state.json          the loop's state: each round's outputs (a run
 *                                                   seed other than 0 adds `-seed<N>` to the folder)
 *   DIR/train-loop/<label slug>/round-<r>/runs/...  round r's exploration runs (pathway `training`,
 *                                                   phase `explore`; outside DIR/runs, so the report
 *                                                   does not mistake them for protocol runs)
 *   DIR/train-loop/<label slug>/round-<r>/sft.jsonl (+ .meta.json, .sources.jsonl), trainer.*.log
 *   DIR/cache/                                      the response cache, shared
 *
 * Exploration seeds: round r explores with run seed (run seed + r - 1), so every round plays fresh
 * boards (round 1 plays the same exploration seeds as the protocol runs of the run seed). Evaluation
 * seeds are odd and exploration seeds even for every run seed (src/runner/loop/seeds.ts), so no round ever
 * explores an evaluation board.
 *
 * Resume: rerun the same command. Finished steps of a round (exploration, SFT set, trainer) are
 * skipped using state.json; exploration and evaluation runs resume like any run. A rerun with other
 * loop settings (base model, games, protocol numbers, BuildSFT settings, label) is refused, naming
 * the fields; `--rounds` may grow (the loop continues) and the trainer command may change (it applies
 * to rounds not yet trained).
 */
import { fineTuneBuiltin } from "./builtinFineTune.js";
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fnv1a32 } from "../util/rng.js";
import type { Game } from "../games/types.js";
import { CheckpointRecord, type CallRecord } from "../logs/schema.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { toCallRecord, type OnCall } from "../models/callLog.js";
import { canonicalJson } from "../util/canonicalJson.js";
import type { Model } from "../models/types.js";
import type { ProtocolSettings, RunEvents } from "../runner/loop/context.js";
import { runCheckpointList } from "../runner/loop/evalList.js";
import { readRunFile } from "../logs/reader.js";
import { acquireRunLock } from "../runner/resume/runLock.js";
import { settingsRecord } from "../runner/settings/protocolRecord.js";
import { runId } from "../runner/settings/runId.js";
import { runDir, runFile } from "../logs/runDir.js";
import type { LowScoreMode } from "./buildSft.js";
import { checkCheckpointModels } from "./checkpoints.js";
import { runExploration } from "./explore.js";
import { writeSftFiles } from "./sftFiles.js";
import type { SftFormat } from "./sftFormat.js";
import { TRAINING_PATHWAY } from "../pathways/registry.js";
import { ConfigError } from "../util/errors.js";
import { terminalText } from "../util/escape/terminal.js";
import { LoopStateFileError, readLoopStateFile, type LoopState, type RoundState } from "./loopState.js";

export type { LoopState, RoundState } from "./loopState.js";

export interface TrainLoopOptions {
  dataDir: string;
  /** M0: the base model spec (epoch 0, and the explorer of round 1). */
  baseModel: string;
  /** The training run's name: the `model` of its records and its row in training.csv. */
  label: string;
  games: readonly Game[];
  /** K: rounds of explore -> build-sft -> train -> evaluate. */
  rounds: number;
  /** The trainer command template (placeholders: see TRAINER_PLACEHOLDERS). */
  trainerCmd: string;
  /** exploreEpisodes (per game per round), evalEpisodes, maxSteps, maxNewTokens, tokenizer, rewardVisibility, runSeed. */
  settings: ProtocolSettings;
  sft: { threshold: number; lowScore: LowScoreMode; format: SftFormat; correctModel: string | null; maskEarlierAnswers: boolean };
  /** Builds a model; `onCall` routes its calls to a log. */
  createModel: (spec: string, onCall?: OnCall) => Model;
  /** Throws (naming the problem) when a spec the trainer printed cannot be used. */
  validateSpec: (spec: string) => void;
  events?: RunEvents;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
  /** The trainer's environment (default process.env), working directory, and where its stderr is echoed live. */
  trainer?: { env?: Record<string, string | undefined>; cwd?: string; echo?: { write(text: string): unknown } };
}

/**
 * The trainer command value that means "the builtin offline fine-tune" (`--trainer builtin`): the loop
 * calls fineTuneBuiltin in process instead of a shell command (only builtin:learner models).
 */
export const BUILTIN_TRAINER = "(builtin: s3gym finetune --backend builtin)";

/** Placeholders of the trainer command, each replaced by its value shell-quoted. */
export const TRAINER_PLACEHOLDERS = {
  train: "the round's SFT JSONL file",
  round: "the round number r (1-based)",
  model: "the checkpoint being improved, M_{r-1} (model spec)",
  base: "the base model M0 (model spec)",
  dir: "the round's directory (for the trainer's outputs)",
  format: "the SFT format (openai-chat or sharegpt)",
  label: "the loop's label",
} as const;

/** A loop that cannot proceed (exploration or evaluation failed, the trainer failed ...): exit 1. */
export class TrainLoopError extends Error {
  override name = "TrainLoopError";
}
/** A rerun that does not match the loop's recorded settings: exit 2, nothing done. */
export class TrainLoopConfigError extends ConfigError {
  override name = "TrainLoopConfigError";
}

/**
 * The loop's folder: one per label and run seed, so loops of one label over several run seeds (Figure
 * 7 over loop seeds) run side by side in one data directory, each with its own state and lock. Run
 * seed 0 keeps the folder it always had, so loops started before seeds were told apart resume.
 */
export function loopDir(dataDir: string, label: string, runSeed = 0): string {
  const slug =
    label
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|-+$/g, "")
      .slice(0, 80) || "loop";
  return join(dataDir, "train-loop", `${slug}-${fnv1a32(label).toString(16).padStart(8, "0")}${runSeed === 0 ? "" : `-seed${runSeed}`}`);
}

export function roundDir(dir: string, round: number): string {
  return join(dir, `round-${round}`);
}

/** Quotes a value for a POSIX shell: single quotes, with embedded ones closed, escaped, reopened. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Replaces the known `{name}` placeholders by their shell-quoted values; other braces are left alone. */
export function substituteCommand(template: string, values: Partial<Record<keyof typeof TRAINER_PLACEHOLDERS, string>>): string {
  return template.replace(/\{([a-z]+)\}/g, (all, name: string) => {
    const v = (values as Record<string, string | undefined>)[name];
    return v === undefined ? all : shellQuote(v);
  });
}

function identityOf(o: TrainLoopOptions): Pick<LoopState, "label" | "base_model" | "games" | "protocol" | "sft"> {
  // The loop has no protocol-loop checkpoints, so checkpoint_every is not part of its identity.
  const { checkpoint_every: _unused, ...protocol } = settingsRecord(o.settings);
  return {
    label: o.label,
    base_model: o.baseModel,
    games: [...o.games.map((g) => g.name)].sort(),
    protocol,
    sft: { threshold: o.sft.threshold, low_score: o.sft.lowScore, format: o.sft.format, correct_model: o.sft.correctModel, mask_earlier_answers: o.sft.maskEarlierAnswers },
  };
}

/** Reads state.json, or starts one; refuses a rerun whose loop settings differ (naming each field). */
export function loadLoopState(dir: string, o: TrainLoopOptions): LoopState {
  const path = join(dir, "state.json");
  const id = identityOf(o);
  let state: LoopState | null;
  try {
    state = readLoopStateFile(path);
  } catch (e) {
    throw e instanceof LoopStateFileError ? new TrainLoopConfigError(e.message) : e;
  }
  if (state === null) {
    return { version: 1, ...id, checkpoints: [{ checkpoint: 0, model: o.baseModel }], evaluated: -1, rounds: [], trainer_cmd: o.trainerCmd, updated_at: new Date().toISOString() };
  }
  const differ = (Object.keys(id) as Array<keyof typeof id>).filter((k) => canonicalJson(state[k]) !== canonicalJson(id[k]));
  if (differ.length > 0) {
    const detail = differ.map((k) => `${k}: ${canonicalJson(state[k])} -> ${canonicalJson(id[k])}`).join("; ");
    throw new TrainLoopConfigError(`the loop in ${dir} was started with other settings (${detail}); rerun with the original flags to resume, or use another --label or --data`);
  }
  return state;
}

function saveState(dir: string, state: LoopState): void {
  state.updated_at = new Date().toISOString();
  writeFileAtomic(join(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
}

export interface TrainerResult {
  code: number | null;
  signal: string | null;
  /** The last non-empty stdout line, trimmed. */
  lastLine: string | null;
  stderrTail: string;
}

const TAIL = 4000;

/** Runs `command` through /bin/sh; stdout and stderr go to files in `logDir` (stderr also echoed live). */
export function runTrainer(command: string, o: { cwd?: string; env?: Record<string, string | undefined>; logDir: string; echo?: { write(text: string): unknown } }): Promise<TrainerResult> {
  return new Promise((resolvePromise, reject) => {
    const outFd = openSync(join(o.logDir, "trainer.stdout.log"), "w");
    const errFd = openSync(join(o.logDir, "trainer.stderr.log"), "w");
    let stdoutTail = "";
    let stderrTail = "";
    const child = spawn("/bin/sh", ["-c", command], { cwd: o.cwd ?? process.cwd(), env: (o.env ?? process.env) as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (b: Buffer) => {
      writeSync(outFd, b);
      stdoutTail = (stdoutTail + b.toString("utf8")).slice(-TAIL);
    });
    child.stderr.on("data", (b: Buffer) => {
      writeSync(errFd, b);
      stderrTail = (stderrTail + b.toString("utf8")).slice(-TAIL);
      o.echo?.write(b.toString("utf8"));
    });
    child.on("error", (e) => {
      closeSync(outFd);
      closeSync(errFd);
      reject(e);
    });
    child.on("close", (code, signal) => {
      closeSync(outFd);
      closeSync(errFd);
      const lines = stdoutTail
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l.length > 0);
      resolvePromise({ code, signal, lastLine: lines.at(-1) ?? null, stderrTail });
    });
  });
}

function tailLines(text: string, n = 20): string {
  const lines = text.trimEnd().split(/\r?\n/);
  return lines.slice(-n).join("\n");
}

export interface TrainLoopResult {
  dir: string;
  state: LoopState;
  /** Per game: the training run and its checkpoint means by epoch (null: failed), from checkpoints.jsonl. */
  curves: Array<{ game: string; runId: string; means: Array<{ epoch: number; mean: number | null }> }>;
}

/** The loop's evaluated curve per game, read from the training runs' checkpoints.jsonl (epochs 0..maxEpoch). */
export function loopCurves(dataDir: string, label: string, games: readonly Game[], runSeed: number, maxEpoch: number): TrainLoopResult["curves"] {
  return games.map((game) => {
    const id = runId({ game: game.name, pathway: TRAINING_PATHWAY, model: label, runSeed });
    const path = runFile(runDir(dataDir, id), "checkpoints");
    const records = existsSync(path) ? readRunFile(path, CheckpointRecord).lines.map((l) => l.value) : [];
    const byEpoch = new Map<number, number | null>();
    for (const c of records) if (c.checkpoint <= maxEpoch) byEpoch.set(c.checkpoint, c.status === "ok" ? c.mean : null);
    return { game: game.name, runId: id, means: [...byEpoch.entries()].sort(([a], [b]) => a - b).map(([epoch, mean]) => ({ epoch, mean })) };
  });
}

/** Runs (or resumes) the loop to round K and the evaluation of epoch K. */
export async function runTrainLoop(o: TrainLoopOptions): Promise<TrainLoopResult> {
  if (!Number.isInteger(o.rounds) || o.rounds < 1) throw new TrainLoopConfigError(`rounds must be an integer >= 1, got ${o.rounds}`);
  const dir = loopDir(o.dataDir, o.label, o.settings.runSeed);
  mkdirSync(dir, { recursive: true });
  const state = loadLoopState(dir, o);
  const log = o.log ?? (() => {});
  // A label already used for another checkpoint list (e.g. by `run --pathways training`) is refused before anything runs.
  try {
    for (const game of o.games) checkCheckpointModels(o.dataDir, runId({ game: game.name, pathway: TRAINING_PATHWAY, model: o.label, runSeed: o.settings.runSeed }), state.checkpoints);
  } catch (e) {
    throw new TrainLoopConfigError((e as Error).message);
  }
  const release = acquireRunLock(dir);
  try {
    state.trainer_cmd = o.trainerCmd;
    saveState(dir, state);

    const evaluate = async (epoch: number): Promise<void> => {
      const list = state.checkpoints.filter((c) => c.checkpoint <= epoch);
      if (state.evaluated >= epoch) return;
      log(`train-loop: evaluating epochs 0..${epoch} (${list.map((c) => c.model).join(", ")}) on ${o.games.map((g) => g.name).join(", ")}`);
      try {
        for (const game of o.games) checkCheckpointModels(o.dataDir, runId({ game: game.name, pathway: TRAINING_PATHWAY, model: o.label, runSeed: o.settings.runSeed }), list);
      } catch (e) {
        throw new TrainLoopConfigError((e as Error).message);
      }
      const outcomes = await Promise.all(
        o.games.map((game) =>
          runCheckpointList({
            dataDir: o.dataDir,
            modelName: o.label,
            game,
            settings: o.settings,
            checkpoints: list,
            createModel: (spec, onCall) => o.createModel(spec, onCall),
            ...(o.events ? { events: o.events } : {}),
          }),
        ),
      );
      const bad = outcomes.filter((x) => x.status !== "complete");
      if (bad.length > 0) {
        const why = bad.map((x) => `${x.runId}: ${x.error ?? x.checkpoints.find((c) => c.status === "failed")?.reason ?? x.status}`).join("; ");
        throw new TrainLoopError(`evaluation of epoch ${epoch} did not complete (${why}); rerun the same command to retry`);
      }
      state.evaluated = epoch;
      saveState(dir, state);
    };

    const explore = async (round: RoundState): Promise<void> => {
      if (round.explored) return;
      const data = roundDir(dir, round.round);
      log(`train-loop: round ${round.round}: exploring with ${round.explore_model} (${o.settings.exploreEpisodes} episodes per game, run seed ${round.explore_run_seed})`);
      const settings = { ...o.settings, runSeed: round.explore_run_seed };
      const outcomes = await Promise.all(
        o.games.map((game) =>
          runExploration({ dataDir: data, model: round.explore_model, game, settings, createModel: (spec, onCall) => o.createModel(spec, onCall), ...(o.events ? { events: o.events } : {}) }),
        ),
      );
      const bad = outcomes.filter((x) => x.status !== "complete");
      if (bad.length > 0)
        throw new TrainLoopError(`round ${round.round}: exploration did not complete (${bad.map((x) => `${x.runId}: ${x.error ?? x.status}`).join("; ")}); rerun the same command to retry`);
      round.explored = true;
      saveState(dir, state);
    };

    for (let r = 1; r <= o.rounds + 1; r++) {
      const epoch = r - 1;
      let round: RoundState | null = null;
      if (r <= o.rounds) {
        round = state.rounds.find((x) => x.round === r) ?? null;
        if (!round) {
          const model = state.checkpoints.find((c) => c.checkpoint === epoch)?.model;
          if (!model) throw new TrainLoopError(`round ${r}: no model for epoch ${epoch} in ${join(dir, "state.json")}`);
          round = { round: r, explore_model: model, explore_run_seed: o.settings.runSeed + r - 1, explored: false, sft: null, trainer: null };
          state.rounds.push(round);
          saveState(dir, state);
        }
      }
      // Epoch r-1's evaluation and round r's exploration use the same model: run them together.
      const results = await Promise.allSettled([evaluate(epoch), round ? explore(round) : Promise.resolve()]);
      const failed = results.find((x): x is PromiseRejectedResult => x.status === "rejected");
      if (failed) throw failed.reason;
      if (!round) break;

      const rdir = roundDir(dir, r);
      mkdirSync(rdir, { recursive: true });
      if (!round.sft) {
        const calls: CallRecord[] = [];
        const result = await writeSftFiles({
          data: [rdir],
          out: join(rdir, "sft.jsonl"),
          games: o.games.map((g) => g.name),
          threshold: o.sft.threshold,
          lowScore: o.sft.lowScore,
          format: o.sft.format,
          maskEarlierAnswers: o.sft.maskEarlierAnswers,
          correctModel: o.sft.correctModel,
          createModel: (spec) => o.createModel(spec, (e) => calls.push(toCallRecord(e))),
          calls,
          onWarning: (w) => log(`train-loop: round ${r}: build-sft warning: ${w}`),
        }).catch((e: unknown) => {
          throw new TrainLoopError(`round ${r}: build-sft failed: ${(e as Error).message}`);
        });
        const t = result.total;
        log(`train-loop: round ${r}: build-sft kept ${t.kept} of ${t.steps} steps (corrected ${t.corrected}, dropped ${t.dropped}) -> ${result.paths.jsonl}`);
        if (result.examples === 0) {
          throw new TrainLoopError(
            `round ${r}: build-sft kept no example (threshold ${o.sft.threshold}; counts in ${result.paths.meta}); lower --threshold, use --low-score correct, or explore more episodes`,
          );
        }
        round.sft = { file: result.paths.jsonl, examples: result.examples, total: t };
        saveState(dir, state);
      }

      if (!round.trainer && o.trainerCmd === BUILTIN_TRAINER) {
        // The offline update of builtin:learner, in process: the new checkpoint file is content-addressed.
        const started = Date.now();
        let ft;
        try {
          ft = fineTuneBuiltin({ train: round.sft.file, model: round.explore_model, epochs: 1, outDir: join(o.dataDir, "checkpoints") });
        } catch (e) {
          throw new TrainLoopError(`round ${r}: the builtin trainer failed: ${(e as Error).message}`);
        }
        round.trainer = { command: BUILTIN_TRAINER, model: ft.spec, finished_at: new Date().toISOString(), wall_s: Math.round((Date.now() - started) / 100) / 10 };
        state.checkpoints = [...state.checkpoints.filter((c) => c.checkpoint !== r), { checkpoint: r, model: ft.spec }].sort((a, b) => a.checkpoint - b.checkpoint);
        saveState(dir, state);
        log(`train-loop: round ${r}: new checkpoint (epoch ${r}): ${ft.spec}`);
      }
      if (!round.trainer) {
        const values = { train: round.sft.file, round: String(r), model: round.explore_model, base: o.baseModel, dir: rdir, format: o.sft.format, label: o.label };
        const command = substituteCommand(o.trainerCmd, values);
        log(`train-loop: round ${r}: trainer: ${command}`);
        const env = {
          ...(o.trainer?.env ?? process.env),
          S3GYM_TRAIN: values.train,
          S3GYM_ROUND: values.round,
          S3GYM_MODEL: values.model,
          S3GYM_BASE_MODEL: values.base,
          S3GYM_ROUND_DIR: values.dir,
          S3GYM_SFT_FORMAT: values.format,
        };
        const started = Date.now();
        let res: TrainerResult;
        try {
          res = await runTrainer(command, { env, logDir: rdir, ...(o.trainer?.cwd ? { cwd: o.trainer.cwd } : {}), ...(o.trainer?.echo ? { echo: o.trainer.echo } : {}) });
        } catch (e) {
          throw new TrainLoopError(`round ${r}: the trainer command could not start: ${(e as Error).message}\n  command: ${command}`);
        }
        const stderrPart = res.stderrTail.trim() ? `\n  stderr (last lines, full log in ${join(rdir, "trainer.stderr.log")}):\n${tailLines(res.stderrTail)}` : "";
        if (res.code !== 0) {
          const how = res.code === null ? `killed by ${res.signal}` : `exit code ${res.code}`;
          throw new TrainLoopError(`round ${r}: the trainer command failed (${how})\n  command: ${command}${stderrPart}`);
        }
        if (res.lastLine === null) {
          throw new TrainLoopError(
            `round ${r}: the trainer command printed no model spec (its LAST stdout line must be the new checkpoint, e.g. openai:my-model-r${r})\n  command: ${command}${stderrPart}`,
          );
        }
        try {
          o.validateSpec(res.lastLine);
        } catch (e) {
          throw new TrainLoopError(
            `round ${r}: the trainer's last stdout line '${terminalText(res.lastLine.slice(0, 200))}' is not a usable model spec: ${(e as Error).message}\n  command: ${command}`,
          );
        }
        round.trainer = { command, model: res.lastLine, finished_at: new Date().toISOString(), wall_s: Math.round((Date.now() - started) / 100) / 10 };
        state.checkpoints = [...state.checkpoints.filter((c) => c.checkpoint !== r), { checkpoint: r, model: res.lastLine }].sort((a, b) => a.checkpoint - b.checkpoint);
        saveState(dir, state);
        log(`train-loop: round ${r}: new checkpoint (epoch ${r}): ${res.lastLine}`);
      }
    }
    return { dir, state, curves: loopCurves(o.dataDir, o.label, o.games, o.settings.runSeed, o.rounds) };
  } finally {
    release();
  }
}
