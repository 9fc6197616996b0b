#!/usr/bin/env node
/** The `s3gym` command: one dispatcher, one module per subcommand. */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { terminalSafe } from "../models/secrets.js";
import { exitCodeOf, HelpRequested } from "./shared/args.js";

/** A command throws HelpRequested and ConfigErrors (UsageError included): `withExitCode` maps them to output and an exit code. */
type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, { about: string; load: () => Promise<Command> }> = {
  games: { about: "list the games, their configs and parameters", load: async () => (await import("./games/games.js")).gamesCommand },
  "build-sft": { about: "build a fine-tuning set from self-judged exploration steps (BuildSFT)", load: async () => (await import("./build-sft/buildSft.js")).buildSftCommand },
  "train-loop": { about: "explore -> build-sft -> your trainer -> evaluate, round after round, resumable", load: async () => (await import("./train-loop/trainLoop.js")).trainLoopCommand },
  finetune: { about: "upload an SFT file to a fine-tuning API and poll the job to the end", load: async () => (await import("./finetune/finetune.js")).finetuneCommand },
  report: { about: "rebuild every paper table and figure from step logs", load: async () => (await import("./report/report.js")).reportCommand },
  figure: { about: "one figure for a paper: models compared on shared axes, or an edited .vl.json re-rendered", load: async () => (await import("./figure/figure.js")).figureCommand },
  sql: { about: "query the logs as tables (runs, episodes, steps, checkpoints, calls, ...) with SQL, read-only", load: async () => (await import("./sql/sql.js")).sqlCommand },
  export: { about: "write the logs' tables as Parquet (zstd) or CSV with a schema.json, for pandas and polars", load: async () => (await import("./export/export.js")).exportCommand },
  compare: { about: "paired comparison on shared evaluation seeds: difference, interval, permutation p, Holm", load: async () => (await import("./compare/compare.js")).compareCommand },
  power: { about: "minimum detectable difference per game and metric for N evaluation episodes, from a pilot", load: async () => (await import("./power/power.js")).powerCommand },
  notebooks: { about: "execute the notebooks headless (Node alone, or Jupyter) and compare their files", load: async () => (await import("./notebooks/notebooks.js")).notebooksCommand },
  reproduce: { about: "the offline matrix, training curves, every table and figure, every notebook headless", load: async () => (await import("./reproduce/reproduce.js")).reproduceCommand },
  run: { about: "play the S3Gym protocol over models x games x pathways, resumable", load: async () => (await import("./run/run.js")).runCommand },
  rejudge: {
    about: "a recorded run's exploration judged by another judge (verifier, shuffled, none, a model): evaluation only",
    load: async () => (await import("./rejudge/rejudge.js")).rejudgeCommand,
  },
  probe: { about: "memory probes: a recorded run's evaluation with its memory emptied, another seed's, or another model's", load: async () => (await import("./probe/probe.js")).probeCommand },
  status: { about: "each planned run's state per shard, and the commands that resume what is missing", load: async () => (await import("./status/status.js")).statusCommand },
  cluster: { about: "a Slurm array job or a Kubernetes indexed Job of shards, then the report (job files)", load: async () => (await import("./cluster/cluster.js")).clusterCommand },
  serve: { about: "an OpenAI-compatible server answering with the built-in policies (test double)", load: async () => (await import("./serve/serve.js")).serveCommand },
  view: { about: "browse runs, episodes and steps in a browser (a static site from the step logs)", load: async () => (await import("./view/view.js")).viewCommand },
  play: { about: "play one episode (built-in policy, actions file, or you at the terminal)", load: async () => (await import("./play/play.js")).playCommand },
  init: { about: "scaffold a study folder: s3gym.yaml, its JSON Schema, a notebook, .gitignore, README", load: async () => (await import("./study/init.js")).initCommand },
  study: { about: "check a study file and print what it resolves to; --schema prints its JSON Schema", load: async () => (await import("./study/studyCommand.js")).studyCommand },
};

/** Adds a command to the table (for a command defined outside the kit, as a test's toy command); the names stay unique. */
export function registerCommand(name: string, about: string, command: Command): void {
  if (Object.hasOwn(COMMANDS, name)) throw new Error(`command '${name}' is already registered`);
  COMMANDS[name] = { about, load: async () => command };
}

function help(): string {
  const rows = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)} ${c.about}`);
  return `s3gym: the S3Gym benchmark kit\n\nusage: s3gym <command> [flags]\n\ncommands:\n${rows.join("\n")}\n\nRun 's3gym <command> --help' for a command's flags; 's3gym --version' for the kit's version.\n`;
}

/** Where a command's help and error line go: the process's streams, or a test's. */
export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * Runs one command and maps what it threw to output and an exit code, the one place that does:
 * `--help` prints the usage to stdout (0); an error the user can fix (a ConfigError, UsageError
 * included) prints one line naming the command to stderr (2); any other error prints the same line
 * and exits 1. A command never catches an error to print it and return a code itself. `main` runs every command through it; tests that inject a command's env or streams call
 * it with the command themselves, so they check the same output and code the user gets.
 */
export async function withExitCode(name: string, run: () => Promise<number>, io: CommandIo = process): Promise<number> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof HelpRequested) {
      io.stdout.write(`${e.message}\n`);
      return 0;
    }
    // By type, never by message text: input the user can fix exits 2; any other failure (a file that
    // cannot be written, a trainer that failed, a bug) exits 1. Both print one line naming the command.
    const message = e instanceof Error ? e.message : String(e);
    io.stderr.write(`s3gym ${name}: ${terminalSafe(message)}\n`);
    return exitCodeOf(e);
  }
}

/** Runs one `s3gym` command line: the usage for no command or `--help`, else the command through `withExitCode`. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    // What a bug report or a methods section quotes: the kit's version, its checkout's commit when it has one, and Node's.
    const { kitProvenance } = await import("../runner/settings/provenance.js");
    const p = kitProvenance();
    const commit = p.kit_commit === null ? "" : ` (commit ${p.kit_commit.slice(0, 12)}${p.kit_dirty === true ? ", uncommitted changes" : ""})`;
    process.stdout.write(`s3gym ${p.kit_version}${commit}, node ${p.node_version}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`s3gym: unknown command '${name}': expected one of ${Object.keys(COMMANDS).join(", ")}\n`);
    return 2;
  }
  // A study file as the first argument stands for the command's folders (docs/study.md); loaded only then.
  const withStudy = async (): Promise<string[]> => (rest[0] !== undefined && /\.ya?ml$/i.test(rest[0]) ? (await import("./study/studyArgv.js")).studyArgv(name, rest) : rest);
  return withExitCode(name, async () => (await command.load())(await withStudy()));
}

/** Whether this module is the process's entry (`s3gym ...`, `node dist/cli/main.js ...`), not imported (tests). */
function isEntry(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      // The last line of defence: whatever escaped a command is redacted and escaped before it shows.
      process.stderr.write(`s3gym: ${terminalSafe(e instanceof Error ? e.message : String(e))}\n`);
      process.exitCode = 1;
    },
  );
}
