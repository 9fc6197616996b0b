/**
 * `s3gym notebooks [--engine node|jupyter] [--data DIR] [--out DIR] [--jobs N] [--timeout S]
 * [--compare DIR] [NAME...]`: executes the kit's notebooks headless into `<out>/notebooks/`, with
 * `S3GYM_DATA` and `S3GYM_OUT` set, so their tables and figures land in `<out>/`.
 *
 * The default engine, `node`, needs only Node (tslab's executor in-process); `jupyter` runs them
 * through nbclient and the tslab kernel. `--compare DIR` then checks that every table and figure the
 * notebooks wrote has the same bytes as DIR's (another engine's output, or `s3gym report`'s).
 *
 * Exit codes: 0 done; 1 a notebook failed or --compare found a difference; 2 bad arguments or a
 * missing prerequisite (with the command that fixes it).
 */
import { existsSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { diffTrees, hashTree } from "../../report/compareTrees.js";
import { ENGINE_NAMES, listNotebooks, NOTEBOOK_ENGINES, NOTEBOOK_TIMEOUT_S, runNotebooks, selectNotebooks, type EngineName } from "../../report/notebooks/engines.js";
import { folderFlag, nonNegativeInt, oneOf, parseFlagsAndPositionals, UsageError } from "../shared/args.js";
import { kitRootFromCli } from "../reproduce/reproduce.js";

export const NOTEBOOKS_USAGE = [
  "s3gym notebooks [--engine node|jupyter] [--data DIR] [--out DIR] [--jobs N] [--timeout S] [--compare DIR] [NAME...]",
  "",
  "  NAME             notebooks to run: a path to any .ipynb file (e.g. your study's analysis.ipynb), or one of the",
  "                   kit's by file name, stem (01_main_results) or unique prefix (01); default all of the kit's",
  "  --engine E       node (default: tslab's executor, Node alone) or jupyter (nbclient + the tslab kernel)",
  "  --data DIR       the data directory the notebooks read (S3GYM_DATA; default data/)",
  "  --out DIR        where their tables and figures go (S3GYM_OUT; default figures/); executed copies in DIR/notebooks/",
  "  --jobs N         notebooks at a time (default 2)",
  "  --timeout S      seconds one notebook may take (default 900)",
  "  --compare DIR    then check every table and figure written has the same bytes as DIR's",
].join("\n");

const FLAGS = {
  engine: { type: "string" },
  data: { type: "string" },
  out: { type: "string" },
  jobs: { type: "string" },
  timeout: { type: "string" },
  compare: { type: "string" },
} as const;

interface Args {
  engine: EngineName;
  data: string;
  out: string;
  jobs: number;
  timeoutS: number;
  compare: string | null;
  names: string[];
}

function parse(argv: string[]): Args {
  const { values: v, positionals } = parseFlagsAndPositionals(argv, FLAGS, NOTEBOOKS_USAGE);
  for (const flag of ["data", "out", "compare"] as const) {
    if (v[flag] !== undefined && v[flag]!.trim() === "") throw new UsageError(`--${flag} is empty: expected a directory`);
  }
  const jobs = nonNegativeInt("jobs", v.jobs, 2, 256);
  if (jobs < 1) throw new UsageError("--jobs must be at least 1");
  const timeoutS = nonNegativeInt("timeout", v.timeout, NOTEBOOK_TIMEOUT_S, 86_400);
  if (timeoutS < 1) throw new UsageError("--timeout must be at least 1 second");
  return {
    engine: oneOf("engine", v.engine, ENGINE_NAMES, "node"),
    data: v.data ?? "data",
    out: folderFlag("out", v.out ?? "figures"),
    jobs,
    timeoutS,
    compare: v.compare ?? null,
    names: positionals,
  };
}

export async function notebooksCommand(argv: string[], io: { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } } = process): Promise<number> {
  // A bad flag or --help is thrown: src/cli/main.ts alone maps them to output and exit codes.
  const a = parse(argv);
  const root = kitRootFromCli();
  const cwd = process.cwd();
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  const shown = (p: string): string => (relative(cwd, p).startsWith("..") ? p : relative(cwd, p) || ".");
  let notebooks: string[];
  try {
    // A path to an existing notebook runs as it is (the user's own); any other name picks one of the kit's.
    const own = a.names.filter((n) => n.endsWith(".ipynb") && existsSync(abs(n)));
    const kit = a.names.filter((n) => !own.includes(n));
    notebooks = [...own.map(abs), ...(kit.length > 0 || own.length === 0 ? selectNotebooks(listNotebooks(root), kit) : [])];
  } catch (e) {
    io.stderr.write(`s3gym notebooks: ${(e as Error).message}\n`);
    return 2;
  }
  if (notebooks.length === 0) {
    io.stderr.write(`s3gym notebooks: no notebooks found in ${join(root, "notebooks")}\n`);
    return 2;
  }
  const problems = NOTEBOOK_ENGINES[a.engine].check(root);
  if (problems.length > 0) {
    io.stderr.write(`s3gym notebooks: the ${a.engine} engine cannot run:\n${problems.map((p) => `- ${p}`).join("\n")}\n`);
    return 2;
  }
  const data = a.data.split(",").map((d) => abs(d.trim()));
  const missing = data.filter((d) => !existsSync(d));
  if (missing.length > 0) {
    io.stderr.write(`s3gym notebooks: --data ${missing.map(shown).join(", ")} does not exist (run 's3gym reproduce' or 's3gym run ... --data DIR' first)\n`);
    return 2;
  }
  const out = abs(a.out);
  const compare = a.compare === null ? null : abs(a.compare);
  if (compare !== null && !existsSync(compare)) {
    io.stderr.write(`s3gym notebooks: --compare ${shown(compare)} does not exist\n`);
    return 2;
  }
  const t0 = Date.now();
  try {
    await runNotebooks({
      engine: a.engine,
      root,
      notebooks,
      outDir: join(out, "notebooks"),
      env: { S3GYM_DATA: data.join(","), S3GYM_OUT: out },
      jobs: a.jobs,
      timeoutS: a.timeoutS,
      onDone: (nb, ms) => io.stdout.write(`executed ${basename(nb)} in ${(ms / 1000).toFixed(1)} s (${a.engine} engine) -> ${shown(join(out, "notebooks", basename(nb)))}\n`),
    });
  } catch (e) {
    io.stderr.write(`s3gym notebooks: ${(e as Error).message}\n`);
    return 1;
  }
  io.stdout.write(`${notebooks.length} notebook(s) executed in ${((Date.now() - t0) / 1000).toFixed(1)} s; tables and figures in ${shown(out)}\n`);
  if (compare !== null) {
    const ours = hashTree(out);
    ours.delete("report.json");
    const theirs = hashTree(compare);
    // Only the files the notebooks wrote: a subset of notebooks writes a subset of the report.
    // Every notebook ran: they write every table and figure of the report (report.json is the report's alone).
    const expected = a.names.length === 0 ? theirs : new Map([...theirs].filter(([f]) => ours.has(f)));
    expected.delete("report.json");
    const d = diffTrees(expected, ours);
    const bad = [
      ...d.changed.map((f) => `${f} (different bytes)`),
      ...d.added.map((f) => `${f} (not in ${shown(compare)})`),
      ...d.missing.map((f) => `${f} (in ${shown(compare)}, not written by the notebooks)`),
    ];
    if (ours.size === 0) bad.push(`nothing was written under ${shown(out)}`);
    if (bad.length > 0) {
      io.stderr.write(`s3gym notebooks: ${bad.length} file(s) differ from ${shown(compare)}:\n${bad.map((f) => `- ${f}`).join("\n")}\n`);
      return 1;
    }
    io.stdout.write(`the ${ours.size} table and figure files are byte-identical to ${shown(compare)}'s\n`);
  }
  return 0;
}
