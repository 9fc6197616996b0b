/**
 * manifest.json (logs.md): the run's full resolved configuration, the kit version, the model and its
 * endpoint host, the seeds, started/ended, status and wall time. Never an API key: the config is
 * built from settings and flags that hold names and numbers only (a key variable's NAME at most),
 * and the endpoint is recorded as a host.
 */
import { canonicalJson } from "../../util/canonicalJson.js";
import { InvocationRecord, RunManifest, SCHEMA_VERSION, type RunConfigRecord, type RunQualityRecord } from "../../logs/schema.js";
import type { z } from "zod";
import { absentRecordDefaults, protocolRecord } from "./protocolRecord.js";
import type { UsageTotals } from "../monitor/usage.js";

/** What a caller records as `config.invocation`. */
export type InvocationInput = z.input<typeof InvocationRecord>;
import { writeJsonAtomic } from "../../logs/writer.js";
import type { RunContext } from "../loop/context.js";
import { checkpointList } from "../loop/schedule.js";
import { RULES_VERSION, UNRECORDED_RULES_VERSION } from "../../games/version.js";
import { manifestPath } from "../../logs/runDir.js";
import { getKitVersion, runProvenance } from "./provenance.js";
import { ConfigError } from "../../util/errors.js";

// The kit's version lives with the rest of the provenance; re-exported for the callers that read it here.
export { getKitVersion } from "./provenance.js";

/**
 * What the run's model name resolved to (`config.model`): the spec behind a models-file alias and its
 * sampling. The run id comes from the name alone, so this is what tells two models (or two
 * temperatures) apart under one alias. Null for a model built by hand (tests): nothing to record.
 */
export function modelConfig(run: Pick<RunContext, "model">): { spec: string; sampling: Record<string, unknown> } | null {
  const r = run.model.resolved;
  return r ? { spec: r.spec, sampling: { ...r.sampling } } : null;
}

/**
 * Throws when a rerun would continue a run under a different protocol (mixing two experiments in one
 * directory). Names every differing field. The model (`config.model`) is compared when both the
 * manifest and this invocation know it (a manifest from before it was recorded is not refused).
 */
export function checkResumable(previous: RunManifest, run: Pick<RunContext, "runId" | "settings" | "configs">, modelNow: ReturnType<typeof modelConfig> = null): void {
  checkRulesVersion(previous, run.runId);
  const before: Record<string, unknown> = { ...(previous.config.protocol ?? {}) };
  // A key this kit always records, missing from an older manifest, reads as what it meant then
  // (`parse_rule`: the literal contract, resumable with --strict-contract; `history_cut`: per step).
  if (Object.keys(before).length > 0) for (const [k, absent] of Object.entries(absentRecordDefaults())) before[k] ??= absent;
  const now: Record<string, unknown> = protocolRecord(run);
  // Views may be ADDED to a run that had none (views.md): they never change what its exploration and
  // eval episodes are, and each checkpoint's views read the snapshot rebuilt from the logs. Changing
  // or dropping views a run already plays is a clash like any other.
  if (before.views === undefined && now.views !== undefined) delete now.views;
  const modelBefore = previous.config.model;
  if (modelBefore !== undefined && modelBefore !== null && modelNow !== null) {
    before.model = modelBefore;
    now.model = modelNow;
  }
  const differ = Object.keys({ ...before, ...now }).filter((k) => canonicalJson(before[k]) !== canonicalJson(now[k]));
  if (differ.length > 0) {
    const detail = differ.map((k) => `${k}: ${canonicalJson(before[k])} -> ${canonicalJson(now[k])}`).join("; ");
    throw new ConfigError(`run ${run.runId} already has logs under a different protocol (${detail}); rerun with the original flags to resume, or use another --data directory`);
  }
}

/**
 * Throws when the run was logged under other game rules: its episodes and a resumed run's would
 * score under two rule sets. The old data stays readable: `s3gym report` reads it as it is.
 */
export function checkRulesVersion(previous: Pick<RunManifest, "rules_version">, runId: string): void {
  const before = previous.rules_version ?? UNRECORDED_RULES_VERSION;
  if (before === RULES_VERSION) return;
  throw new ConfigError(
    `run ${runId} was logged under games rules version ${before}, but this kit plays rules version ${RULES_VERSION} ` +
      `(the rules changed what a score means, see src/games/version.ts), so resuming it would mix two rule sets in one run; ` +
      `its logs still read and report as they are: start the new runs in another --data directory, or resume with the kit version that wrote it`,
  );
}

export class ManifestWriter {
  private readonly path: string;
  private readonly startedMs = Date.now();
  private readonly priorWallS: number;
  private readonly startedAt: string;
  private readonly invocations: number;
  private readonly previousModel: RunConfigRecord["model"];
  /** The fingerprints an earlier write recorded (kept until this invocation's end summarises calls.jsonl). */
  private readonly previousFingerprints: string[];
  private readonly previousServed: string[];

  constructor(
    private readonly run: RunContext,
    /** Invocation settings worth recording (concurrency, cache, retries, shard ...): names and numbers only. */
    private readonly invocation: InvocationInput,
    previous: RunManifest | null,
    /** The checkpoints the run evaluates (default: the protocol's list). */
    private readonly checkpoints: number[] = checkpointList(run.settings.exploreEpisodes, run.settings.checkpointEvery),
    /** Record `config.model` (not for a training run: each checkpoint has its own model, see the invocation). */
    private readonly recordModel = true,
  ) {
    this.path = manifestPath(run.logs.dir);
    this.priorWallS = previous?.wall_s ?? 0;
    this.startedAt = previous?.started_at ?? run.now().toISOString();
    this.invocations = (typeof previous?.invocations === "number" ? previous.invocations : 0) + 1;
    // A model built by hand (no resolved spec) must not erase what an earlier invocation recorded.
    this.previousModel = previous?.config.model ?? null;
    this.previousFingerprints = previous?.provenance?.served_fingerprints ?? previous?.quality?.system_fingerprints ?? [];
    this.previousServed = previous?.provenance?.served_models ?? [];
  }

  /**
   * The invocation as this run used it: the key variable and concurrency its model resolved to (a
   * models-file entry's own), not the flags' values; a built-in model sends no key.
   */
  private usedInvocation(): InvocationInput {
    const r = this.run.model.resolved;
    if (!r || r.apiKeyEnv === undefined) return this.invocation;
    // The same keys in the same order; a built-in model's invocation drops the key variable it never read.
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.invocation)) {
      if (k === "api_key_env") {
        if (r.apiKeyEnv !== null) out[k] = r.apiKeyEnv;
      } else if (k === "concurrency" && r.concurrency !== null && r.concurrency !== undefined) out[k] = r.concurrency;
      else out[k] = v;
    }
    return out as InvocationInput;
  }

  /**
   * Writes the manifest (atomically). `ended`: the run finished in this invocation. `extra`: fields
   * known at the end (the reply statistics, why a run was degenerate).
   */
  write(status: string, ended: boolean, usage?: UsageTotals, extra: { replies?: Record<string, number>; degenerate_reason?: string; quality?: RunQualityRecord } = {}): void {
    const run = this.run;
    const wall = this.priorWallS + (Date.now() - this.startedMs) / 1000;
    writeJsonAtomic(this.path, RunManifest, {
      schema_version: SCHEMA_VERSION,
      run_id: run.runId,
      model: run.modelName,
      game: run.game.name,
      pathway: run.pathway,
      kit_version: getKitVersion(),
      rules_version: RULES_VERSION,
      endpoint_host: run.model.endpointHost,
      run_seed: run.settings.runSeed,
      explore_seeds: run.exploreSeeds,
      eval_seeds: run.evalSeeds,
      ...(run.idSeeds ? { id_seeds: run.idSeeds } : {}),
      reward_visibility: run.settings.rewardVisibility,
      ...(run.recorded ? { rejudged_from: { run_id: run.recorded.source.runId, dir: run.recorded.source.dir } } : {}),
      ...(run.recorded?.probe ? { probe: run.recorded.probe.record } : {}),
      config: {
        protocol: protocolRecord(run),
        ...(this.recordModel && (modelConfig(run) ?? this.previousModel) ? { model: modelConfig(run) ?? this.previousModel } : {}),
        checkpoints: this.checkpoints,
        sampling: { max_tokens: run.settings.maxNewTokens },
        invocation: this.usedInvocation(),
      },
      started_at: this.startedAt,
      ended_at: ended ? run.now().toISOString() : null,
      status,
      // Active wall time summed over invocations (a killed invocation counts up to its last write).
      wall_s: Math.round(wall * 1000) / 1000,
      invocations: this.invocations,
      // Calls, tokens and dollars of every invocation so far (from calls.jsonl), once the run ends.
      ...(usage ? { usage } : {}),
      ...extra,
      provenance: runProvenance(run.model, extra.quality?.system_fingerprints ?? this.previousFingerprints, extra.quality ? (extra.quality.served_models ?? []) : this.previousServed),
    });
  }
}
