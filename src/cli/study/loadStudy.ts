/**
 * Reads a study file and turns it into what the commands already take: `s3gym run`'s flag values
 * (protocol, views, endpoint, caps, pathways, games, models) and models-file entries, the data and
 * output folders resolved from the study file's folder. `s3gym run s3gym.yaml` then parses exactly
 * as if those flags had been typed (flags given on the command line win), so the study, the flags
 * and the job files end in the same RunJobSettings and the same run: there is no second runner.
 *
 * The resolved study (every value after defaults, overrides and the smoke profile, paths absolute)
 * is recorded in the data folder as `study.json` and `studies/<sha256>.json`; each manifest of the
 * runs it starts names that hash (config.invocation.study, src/logs/schema.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import type { ModelsFileEntry } from "../../models/modelsFile.js";
import { GAIN_FROM_X } from "../../analysis/metrics/gain.js";
import { pathwayOptions, playsProtocolLoop } from "../../pathways/registry.js";
import { flagText } from "../../util/options.js";
import { canonicalJson } from "../../util/canonicalJson.js";
import { escapeControl, cut } from "../../util/outsideText.js";
import { issuePath } from "../../util/zodIssues.js";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { closestName, UsageError } from "../shared/args.js";
import { STUDY_PROTOCOL_ROWS, StudyFile, type StudyFile as StudyFileType } from "./studySchema.js";

/** The file name `s3gym init` writes and the commands look for. */
export const STUDY_FILE_NAME = "s3gym.yaml";

/** The smoke profile's protocol when the study does not set its own: one exploration episode, the checkpoint after it, few steps. */
export const SMOKE_PROTOCOL = { "explore-episodes": 1, "checkpoint-every": 1, "eval-episodes": 1, "max-steps": 4 } as const;

/** Whether a command-line argument names a study file (a `.yaml` or `.yml` path). */
export function isStudyPath(arg: string): boolean {
  return [".yaml", ".yml"].includes(extname(arg).toLowerCase());
}

/** A study file read, checked and resolved (the smoke profile applied when asked). */
export interface Study {
  /** Absolute path of the study file. */
  file: string;
  /** The folder every path of the file is resolved from. */
  dir: string;
  /** The file as validated. */
  raw: StudyFileType;
  /** Whether the smoke profile is applied. */
  smoke: boolean;
  /** Absolute data folder (the smoke profile's under --smoke). */
  data: string;
  /** Absolute output folder of report, view and notebooks. */
  out: string;
  /** Model names for --models (aliases of entries, or the bare specs), in the file's order. */
  models: string[];
  /** The entries with an alias (what a models file would hold). */
  entries: ModelsFileEntry[];
  /** The pathways played, the `none` control added when the study asks for it. */
  pathways: string[];
  /** Notes to print before running (the control added, or the gain columns that will be empty). */
  notes: string[];
  /** Run seeds, one replicate each. */
  seeds: number[];
  /** `s3gym run`'s flag values the study stands for (strings and switches, as parseArgs gives them). */
  flags: Record<string, string | boolean>;
}

/** Reads, validates and resolves `path`; a UsageError names the field, the value and the fix. */
export function loadStudy(path: string, o: { smoke?: boolean } = {}): Study {
  const file = resolve(path);
  const shown = escapeControl(path);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`study ${shown}: cannot read it (${code})${code === "ENOENT" ? ": create one with 's3gym init DIR'" : ""}`);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (e) {
    throw new UsageError(`study ${shown}: not valid YAML: ${escapeControl((e as Error).message.split("\n")[0] ?? "")}`);
  }
  if (data === null || data === undefined) throw new UsageError(`study ${shown} is empty: write models, games and pathways (see 's3gym init DIR' for a commented one)`);
  const parsed = StudyFile.safeParse(data);
  if (!parsed.success) throw new UsageError(`study ${shown}: ${studyIssues(parsed.error, data)}`);
  return resolveStudy(parsed.data, file, o.smoke === true);
}

/** The issues of a study file, each `field: message (got VALUE)` with the fix where one is known. Values of models and endpoint entries are never echoed: a key pasted there must not reach a terminal. */
export function studyIssues(error: z.ZodError, data: unknown, max = 3): string {
  const shown = error.issues.slice(0, max).map((i) => {
    const field = issuePath(i.path, "brackets");
    let msg = i.message;
    if (i.code === "unrecognized_keys") {
      const known = knownKeys(i.path);
      msg = i.keys
        .map((k) => {
          const guess = known.length > 0 ? closestName(k, known) : null;
          return `unknown key '${escapeControl(cut(k, 60))}'${guess ? ` (did you mean '${guess}'?)` : known.length > 0 ? ` (expected one of ${known.join(", ")})` : ""}`;
        })
        .join("; ");
    } else {
      const secretive = i.path[0] === "models" || i.path[0] === "endpoint";
      const value = valueAt(data, i.path);
      if (!secretive && value !== undefined) msg += ` (got ${escapeControl(cut(JSON.stringify(value) ?? String(value), 60))})`;
    }
    return `${field}: ${msg}`;
  });
  const rest = error.issues.length - shown.length;
  return shown.join("; ") + (rest > 0 ? ` (and ${rest} more)` : "");
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** The keys allowed where an unknown key was found, for "did you mean". */
function knownKeys(path: readonly PropertyKey[]): string[] {
  const top = Object.keys(StudyFile.shape);
  if (path.length === 0) return top;
  const at = String(path[path.length - 1]);
  if (at === "protocol") return STUDY_PROTOCOL_ROWS.map((r) => r.flag.name);
  const shape = (StudyFile.shape as Record<string, unknown>)[String(path[0])];
  const inner = (shape as { unwrap?: () => { shape?: Record<string, unknown> } } | undefined)?.unwrap?.().shape;
  return inner ? Object.keys(inner) : [];
}

function resolveStudy(raw: StudyFileType, file: string, smoke: boolean): Study {
  const dir = dirname(file);
  const at = (p: string): string => resolve(dir, p);
  const entries: ModelsFileEntry[] = [];
  const models: string[] = [];
  for (const m of raw.models) {
    if (typeof m === "string") models.push(m);
    else {
      entries.push(m);
      models.push(m.alias);
    }
  }
  const seen = new Set<string>();
  for (const m of models) {
    if (seen.has(m)) throw new UsageError(`study ${escapeControl(file)}: models: '${escapeControl(m)}' is listed twice: list each model once`);
    seen.add(m);
  }
  const notes: string[] = [];
  const pathways = [...new Set(raw.pathways)];
  const learning = pathways.filter((p) => playsProtocolLoop(p) && p !== "none");
  if (learning.length > 0 && !pathways.includes("none")) {
    if (raw.control !== false) {
      pathways.unshift("none");
      notes.push(`playing the 'none' control besides ${learning.join(", ")}: gain_vs_none pairs each pathway with a none run of the same model, game and seed (control: false skips it)`);
    } else {
      notes.push(
        `WARNING: control: false and no 'none' pathway: the gain_vs_none columns of the report will be EMPTY (no none run to pair ${learning.join(", ")} with), unless this data folder already holds none runs of the same models, games and seeds`,
      );
    }
  }
  const blocks = raw as Record<string, unknown>;
  for (const { pathway } of pathwayOptions()) {
    if (blocks[pathway] && !pathways.includes(pathway)) throw new UsageError(`study ${escapeControl(file)}: ${pathway}: is set but pathways does not list ${pathway}: add it, or drop the block`);
  }
  const protocol: Record<string, unknown> = { ...(raw.protocol ?? {}), ...(smoke ? { ...SMOKE_PROTOCOL, ...(raw.smoke?.protocol ?? {}) } : {}) };
  const flags: Record<string, string | boolean> = {};
  for (const r of STUDY_PROTOCOL_ROWS) {
    const v = protocol[r.flag.name];
    if (v === undefined || v === false) continue;
    flags[r.flag.name] = v === true ? true : String(v);
  }
  // The gains average the checkpoints from GAIN_FROM_X on: a schedule that ends before it leaves them empty.
  const explore = Number(flags["explore-episodes"] ?? STUDY_PROTOCOL_ROWS.find((r) => r.flag.name === "explore-episodes")?.default ?? 0);
  if (explore < GAIN_FROM_X)
    notes.push(
      `${smoke ? "smoke run: " : ""}explore-episodes ${explore} ends before checkpoint ${GAIN_FROM_X}, where gain_vs_none and gain_vs_y0 start averaging: those columns stay empty${smoke ? " (the smoke run checks the endpoints, not the gains)" : ""}`,
    );
  const games = smoke && raw.smoke?.games ? raw.smoke.games : raw.games;
  flags.games = games === "all" ? "all" : games.join(",");
  flags.pathways = pathways.join(",");
  flags.models = models.join(",");
  if (raw.views) {
    flags.views = raw.views.names.join(",");
    if (raw.views["view-episodes"] !== undefined) flags["view-episodes"] = String(raw.views["view-episodes"]);
    if (raw.views["replay-episodes"] !== undefined) flags["replay-episodes"] = String(raw.views["replay-episodes"]);
  }
  for (const { pathway, rows } of pathwayOptions()) {
    const block = (blocks[pathway] ?? {}) as Record<string, unknown>;
    for (const r of rows) if (block[r.name] !== undefined && block[r.name] !== false) flags[r.name] = flagText(block[r.name]);
  }
  for (const [k, v] of Object.entries(raw.endpoint ?? {})) if (v !== undefined) flags[k] = Array.isArray(v) ? v.join(",") : String(v);
  for (const [k, v] of Object.entries(raw.caps ?? {})) if (v !== undefined) flags[k] = String(v);
  const data = smoke ? at(raw.smoke?.data ?? "smoke/data") : at(raw.data ?? "data");
  const out = smoke ? at(raw.smoke?.out ?? "smoke/figures") : at(raw.out ?? "figures");
  flags.data = data;
  // protocol.run-seed is one seed; seeds: is the list. Both would say two things.
  const oneSeed = raw.protocol?.["run-seed"];
  if (oneSeed !== undefined && raw.seeds !== undefined)
    throw new UsageError(`study ${escapeControl(file)}: protocol.run-seed and seeds both set the run seed: keep seeds (a list) and drop protocol.run-seed`);
  delete flags["run-seed"];
  // A count n is the seeds 0..n-1 (the same runs as the list [0, ..., n-1]).
  const seeds = typeof raw.seeds === "number" ? Array.from({ length: raw.seeds }, (_, i) => i) : (raw.seeds ?? [typeof oneSeed === "number" ? oneSeed : 0]);
  return { file, dir, raw, smoke, data, out, models, entries, pathways, notes, seeds: [...new Set(seeds)], flags };
}

/** Flags that change what is shown, not what runs. */
const DISPLAY_FLAGS: readonly string[] = ["progress"];

/** What a study invocation records: the resolved study and the flags given over it. */
export interface StudyRecord {
  /** sha256 of the canonical JSON of `content` (what a manifest names). */
  sha256: string;
  content: Record<string, unknown>;
}

/**
 * The resolved study as recorded: the study file's path and its bytes' hash, the profile, every
 * resolved flag value (after the command-line overrides, named apart), the model entries (they hold
 * key NAMES, never keys) and the seeds. Its hash changes when anything that decides the runs does.
 */
export function studyRecord(study: Study, overrides: Readonly<Record<string, unknown>>): StudyRecord {
  // Display flags do not decide the runs: left out, so the same study shows the same hash whatever the terminal.
  const given = Object.fromEntries(Object.entries(overrides).filter(([k, v]) => v !== undefined && !DISPLAY_FLAGS.includes(k)));
  const content = {
    format: 1,
    study_file: study.file,
    study_file_sha256: createHash("sha256").update(readFileSync(study.file)).digest("hex"),
    profile: study.smoke ? "smoke" : "study",
    models: study.raw.models,
    flags: { ...study.flags, ...given },
    overrides: given,
    seeds: typeof given["run-seed"] === "string" ? [Number(given["run-seed"])] : study.seeds,
    data: study.data,
    out: study.out,
  };
  return { sha256: createHash("sha256").update(canonicalJson(content)).digest("hex"), content };
}

/** The file (relative to the data folder) a study of this hash is kept in. */
export function studyFileIn(sha256: string): string {
  return join("studies", `${sha256}.json`);
}

/** Writes the resolved study into `dataDir`: `study.json` (the latest) and `studies/<sha256>.json` (every one ever played, never overwritten). */
export function recordStudy(dataDir: string, rec: StudyRecord): void {
  const text = `${JSON.stringify({ sha256: rec.sha256, ...rec.content }, null, 2)}\n`;
  mkdirSync(join(dataDir, "studies"), { recursive: true });
  const kept = join(dataDir, studyFileIn(rec.sha256));
  if (!existsSync(kept)) writeFileAtomic(kept, text);
  writeFileAtomic(join(dataDir, "study.json"), text);
}
