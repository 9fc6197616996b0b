/**
 * The two ways the kit executes its notebooks headless, behind one interface:
 *
 * - `node` (default): tslab's own executor in a Node process per notebook (`notebookWorker.ts`).
 *   Needs only Node and `npm ci` + `npm run build`: no Python, no Jupyter, no kernel spec.
 * - `jupyter`: nbclient (Debian's or pip's Jupyter) with the tslab kernel, what `jupyter lab`
 *   runs interactively; the second engine, which CI compares byte for byte with the first.
 *
 * Both run the same cells against the same built kit, so the tables and figures a notebook writes
 * are the same bytes whichever engine ran it.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkJupyter } from "./jupyter.js";
import { executeWithNbclient } from "./nbclientRunner.js";
import { cellOutputs, parseNotebook } from "./nbformat.js";
import { CELL_MARK } from "./cellRunner.js";
import { DATASET_SNAPSHOT_VAR, writeDatasetSnapshot } from "./datasetSnapshot.js";
import { notebookSettings } from "./settings.js";
import type { OptionTable } from "../../util/options.js";

export type EngineName = "node" | "jupyter";
export const ENGINE_NAMES: readonly EngineName[] = ["node", "jupyter"];

export interface NotebookEngine {
  name: EngineName;
  /** What keeps this engine from running, each problem with its fix; empty when ready. */
  check(root: string, env?: Record<string, string | undefined>): string[];
  /**
   * Executes `notebook` into `<outDir>/<same name>`; rejects on a failing cell (naming the cell and
   * the error), a timeout, or an engine failure.
   */
  execute(root: string, notebook: string, outDir: string, env: Record<string, string>, timeoutS: number): Promise<void>;
}

/** The default per-notebook time limit (seconds). */
export const NOTEBOOK_TIMEOUT_S = 900;

/** How the notebooks are executed (`s3gym notebooks`): the engine, notebooks at a time, one notebook's time limit. */
export const NOTEBOOK_RUN_OPTIONS: OptionTable<{ engine: EngineName; jobs: number; timeout: number }> = {
  engine: { name: "engine", kind: { type: "choice", choices: ENGINE_NAMES }, default: "node", help: "node (default: tslab's executor, Node alone) or jupyter (nbclient + the tslab kernel)" },
  jobs: {
    name: "jobs",
    kind: { type: "int", range: { min: 1, max: 256 } },
    arg: "N",
    default: 2,
    help: "notebooks at a time (default 2)",
  },
  timeout: {
    name: "timeout",
    kind: { type: "int", range: { min: 1, max: 86_400 } },
    arg: "S",
    default: NOTEBOOK_TIMEOUT_S,
    help: `seconds one notebook may take (default ${NOTEBOOK_TIMEOUT_S})`,
  },
};

/** Problems of the built kit the notebooks import (both engines need it). */
function kitProblems(root: string): string[] {
  const problems: string[] = [];
  // Resolved as the worker loads it: from the kit's folder upwards (a kit installed as a dependency finds it hoisted).
  try {
    createRequire(join(root, "package.json")).resolve("tslab/dist/executor");
  } catch {
    problems.push(`tslab is not installed (it cannot be found from ${root}): run 'npm ci' in the kit's clone, or 'npm install' in the project that installed s3gym`);
  }
  if (!existsSync(join(root, "dist", "index.js"))) problems.push(`the kit is not built (${join(root, "dist", "index.js")} is missing; the notebooks import it): run 'npm run build'`);
  return problems;
}

/**
 * How to start the worker: the compiled `worker.js` next to this module; under tsx (the
 * tests run src/), the .ts file through tsx's loader.
 */
function workerCommand(): string[] {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".ts")) return ["--import", "tsx", join(dirname(here), "worker.ts")];
  return [join(dirname(here), "worker.js")];
}

const nodeEngine: NotebookEngine = {
  name: "node",
  check: (root) => kitProblems(root),
  execute(_root, notebook, outDir, env, timeoutS) {
    mkdirSync(outDir, { recursive: true });
    const dst = join(outDir, basename(notebook));
    return new Promise((resolvePromise, reject) => {
      const child = spawn(process.execPath, [...workerCommand(), resolve(notebook), dst], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      let cell = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-100_000);
        // The worker names each cell as it starts it; keep the last for the timeout message.
        const marks = stderr.split("\n").filter((l) => l.startsWith(CELL_MARK));
        if (marks.length > 0) cell = marks[marks.length - 1]!.slice(CELL_MARK.length);
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutS * 1000);
      child.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        const text = stderr
          .split("\n")
          .filter((l) => !l.startsWith(CELL_MARK))
          .join("\n")
          .trim();
        if (code === 0) resolvePromise();
        else if (signal === "SIGKILL") reject(new Error(`notebook ${basename(notebook)} timed out after ${timeoutS} s, in cell ${cell || "?"} (node engine)`));
        else reject(new Error(`notebook ${basename(notebook)} failed (node engine, exit ${code ?? signal}):\n${text}`));
      });
    });
  },
};

const jupyterEngine: NotebookEngine = {
  name: "jupyter",
  check(root, env = process.env) {
    const r = checkJupyter(root, env);
    return [...kitProblems(root), ...(r.ok ? [] : r.problems)];
  },
  async execute(root, notebook, outDir, env, timeoutS) {
    const r = checkJupyter(root);
    if (!r.ok) throw new Error(r.problems.join("\n"));
    mkdirSync(outDir, { recursive: true });
    await executeWithNbclient(r.setup, notebook, outDir, env, timeoutS);
  },
};

/** The engine registry. */
export const NOTEBOOK_ENGINES: Record<EngineName, NotebookEngine> = { node: nodeEngine, jupyter: jupyterEngine };

/**
 * What is wrong with an executed notebook: a code cell that did not run, an error output, or no
 * rich output at all (a notebook that printed nothing a reader can see). Empty when it is fine.
 */
export function executedProblems(path: string): string[] {
  const nb = parseNotebook(readFileSync(path, "utf8"), path);
  const problems: string[] = [];
  const code = nb.cells.filter((c) => c.cell_type === "code");
  const notRun = code.filter((c) => c.execution_count === null || c.execution_count === undefined);
  if (notRun.length > 0) problems.push(`${notRun.length} of ${code.length} code cells did not run (first: ${notRun[0]!.id ?? "?"})`);
  const outputs = cellOutputs(nb);
  const errors = outputs.filter((o) => o.output_type === "error");
  if (errors.length > 0) problems.push(`${errors.length} error output(s)`);
  if (!outputs.some((o) => o.output_type === "display_data")) problems.push("no rich output (no display_data at all)");
  return problems;
}

export interface RunNotebooksOptions {
  engine: EngineName;
  root: string;
  notebooks: readonly string[];
  outDir: string;
  env: Record<string, string>;
  jobs: number;
  timeoutS?: number;
  /** Called as each notebook finishes (ms it took). */
  onDone?(notebook: string, ms: number): void;
  /**
   * A snapshot already written for `env.S3GYM_DATA` (reproduce's, from its report: writeReportSnapshot):
   * every notebook gets it from the start and no data set is loaded here. The caller removes it.
   */
  snapshot?: string;
}

/**
 * Executes notebooks `jobs` at a time into `outDir`. Resolves with the executed copies (in the
 * given order); rejects with the first failure once the running ones have ended. With more than one
 * notebook, the data set of `env.S3GYM_DATA` is loaded once, while the first notebook starts, and
 * handed to the others as a snapshot (`S3GYM_DATASET`, datasetSnapshot.ts; removed at the end);
 * with `o.snapshot` (one the caller made), every notebook gets that one and nothing is loaded here.
 */
export async function runNotebooks(o: RunNotebooksOptions): Promise<string[]> {
  const engine = NOTEBOOK_ENGINES[o.engine];
  await mkdir(o.outDir, { recursive: true });
  const queue = [...o.notebooks];
  let failed: Error | null = null;
  // The data set is loaded once here, while the first notebook starts (without it: it may be one
  // that reads the logs its own way); every later notebook gets the snapshot (datasetSnapshot.ts).
  let ready: (env: Record<string, string>) => void = () => {};
  const snapshotEnv = new Promise<Record<string, string>>((r) => (ready = r));
  let first = true;
  const worker = async (): Promise<void> => {
    for (let nb = queue.shift(); nb !== undefined && failed === null; nb = queue.shift()) {
      const env = first && o.snapshot === undefined ? o.env : await snapshotEnv;
      first = false;
      if (failed !== null) return; // a notebook failed while this one waited for the snapshot
      const t = Date.now();
      try {
        await engine.execute(o.root, nb, o.outDir, env, o.timeoutS ?? NOTEBOOK_TIMEOUT_S);
        const problems = executedProblems(join(o.outDir, basename(nb)));
        if (problems.length > 0) throw new Error(`notebook ${basename(nb)} ran but its executed copy is not complete: ${problems.join("; ")}`);
      } catch (e) {
        failed ??= e as Error;
        return;
      }
      o.onDone?.(nb, Date.now() - t);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(o.jobs, o.notebooks.length)) }, worker);
  let snapshotDir: string | null = null;
  try {
    let env = o.env;
    if (o.snapshot !== undefined) env = { ...o.env, [DATASET_SNAPSHOT_VAR]: o.snapshot };
    else if (o.notebooks.length > 1) {
      try {
        snapshotDir = await mkdtemp(join(tmpdir(), "s3gym-notebooks-"));
        env = await snapshotFor(o.env, join(snapshotDir, "dataset.v8"));
      } catch {
        // No snapshot (an unwritable temp folder): each notebook loads the data itself.
      }
    }
    ready(env);
    await Promise.all(workers);
  } finally {
    if (snapshotDir !== null) await rm(snapshotDir, { recursive: true, force: true });
  }
  if (failed) throw failed;
  return o.notebooks.map((nb) => join(o.outDir, basename(nb)));
}

/** `env` plus S3GYM_DATASET naming a snapshot of its S3GYM_DATA, or `env` alone when none could be made. */
async function snapshotFor(env: Record<string, string>, file: string): Promise<Record<string, string>> {
  let data: string[];
  try {
    data = notebookSettings(env).data;
  } catch {
    return env; // a missing data directory: each notebook says so itself
  }
  return (await writeDatasetSnapshot(data, file)) ? { ...env, [DATASET_SNAPSHOT_VAR]: file } : env;
}

/** The kit's notebooks (`<root>/notebooks/*.ipynb`) in execution order. */
export function listNotebooks(root: string): string[] {
  const dir = join(root, "notebooks");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ipynb") && !f.startsWith("."))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * The notebooks named by `names` (each a file name, a stem such as `01_main_results`, or a prefix
 * such as `01`), in execution order; every notebook when `names` is empty. A name matching none, or
 * a prefix matching several, throws an error listing the notebooks.
 */
export function selectNotebooks(all: readonly string[], names: readonly string[]): string[] {
  if (names.length === 0) return [...all];
  const stems = all.map((p) => basename(p, ".ipynb"));
  const chosen = new Set<number>();
  for (const raw of names) {
    const name = basename(raw.trim(), ".ipynb");
    const exact = stems.indexOf(name);
    const hits = exact >= 0 ? [exact] : stems.flatMap((s, i) => (s.startsWith(name) ? [i] : []));
    if (hits.length !== 1) {
      throw new Error(`${hits.length === 0 ? "no notebook matches" : "several notebooks match"} '${raw}': expected one of ${stems.join(", ")} (or a unique prefix such as 01)`);
    }
    chosen.add(hits[0]!);
  }
  return [...chosen].sort((a, b) => a - b).map((i) => all[i]!);
}
