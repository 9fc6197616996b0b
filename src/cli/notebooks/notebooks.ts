/**
 * `s3gym notebooks [flags] [NAME...]`: executes the kit's notebooks headless into `<out>/notebooks/`, with
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
import { listNotebooks, NOTEBOOK_ENGINES, NOTEBOOK_RUN_OPTIONS, runNotebooks, selectNotebooks, type EngineName } from "../../report/notebooks/engines.js";
import { asGiven, optionFlags, readOption, usageLines, type Option, type OptionTable } from "../../util/options.js";
import { folderFlag, parseFlagsAndPositionals, UsageError } from "../shared/args.js";
import { kitRootFromCli } from "../reproduce/reproduce.js";

/** Where the notebooks read and write (the engine's rows are NOTEBOOK_RUN_OPTIONS, report/notebooks/engines.ts). */
const NOTEBOOK_FOLDER_OPTIONS: OptionTable<{ data: string; out: string; compare: string | undefined }> = {
  data: { name: "data", kind: { type: "text", shown: "DIR", parse: asGiven }, default: "data", help: "the data directory the notebooks read (S3GYM_DATA; default data/)" },
  out: {
    name: "out",
    kind: { type: "text", shown: "DIR", parse: (v: string) => folderFlag("out", v) },
    default: "figures",
    help: "where their tables and figures go (S3GYM_OUT; default figures/); executed copies in DIR/notebooks/",
  },
  compare: { name: "compare", kind: { type: "text", shown: "DIR", parse: asGiven }, default: undefined, help: "then check every table and figure written has the same bytes as DIR's" },
};

/** Every row, in the order `--help` lists them. */
const ROWS: Option<unknown>[] = [
  NOTEBOOK_RUN_OPTIONS.engine,
  NOTEBOOK_FOLDER_OPTIONS.data,
  NOTEBOOK_FOLDER_OPTIONS.out,
  NOTEBOOK_RUN_OPTIONS.jobs,
  NOTEBOOK_RUN_OPTIONS.timeout,
  NOTEBOOK_FOLDER_OPTIONS.compare,
];

export const NOTEBOOKS_USAGE = [
  "s3gym notebooks [flags] [NAME...]",
  "",
  "  NAME: notebooks to run: a path to any .ipynb file (e.g. your study's analysis.ipynb), or one of the",
  "  kit's by file name, stem (01_main_results) or unique prefix (01); default all of the kit's",
  ...usageLines(ROWS),
].join("\n");

const FLAGS = optionFlags(ROWS);

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
  const f = NOTEBOOK_FOLDER_OPTIONS;
  const run = NOTEBOOK_RUN_OPTIONS;
  const read = <T>(row: Option<T>): T => readOption(row, v[row.name]) as T;
  for (const row of [f.data, f.out, f.compare]) {
    const given = v[row.name];
    if (typeof given === "string" && given.trim() === "") throw new UsageError(`--${row.name} is empty: expected a directory`);
  }
  const jobs = read(run.jobs);
  const timeoutS = read(run.timeout);
  return {
    engine: read(run.engine),
    data: read(f.data),
    out: read(f.out),
    jobs,
    timeoutS,
    compare: read(f.compare) ?? null,
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
