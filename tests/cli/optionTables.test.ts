/**
 * Every converted command's flags are option rows: its `--help` lists every row of the tables it
 * offers, a bad value is refused naming the flag and what it takes (the same words the hand-written
 * parsers printed: the expected lines below are those, written out), and the protocol settings have
 * one set of defaults. `probe` and `rejudge` read one recorded-run table. The flag lists below are
 * written out by hand, so a row dropped from a command's table fails its --help check.
 */
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { FIGURE_OPTIONS } from "../../src/cli/shared/figureFlags.js";
import { recordedRunOptions } from "../../src/cli/shared/recordedRunFlags.js";
import { settingsFromFlags } from "../../src/cli/shared/sharedFlags.js";
import { ENDPOINT_OPTION_ROWS } from "../../src/models/endpointOptions.js";
import { JUDGES_OPTION } from "../../src/pathways/judge.js";
import { pathwayOptions } from "../../src/pathways/registry.js";
import { DEFAULT_SETTINGS } from "../../src/runner/loop/context.js";
import { VIEW_OPTIONS } from "../../src/runner/loop/views.js";
import { PREFLIGHT_OPTIONS } from "../../src/runner/monitor/endpointPreflight.js";
import { ESTIMATE_OPTION } from "../../src/runner/monitor/estimate.js";
import { PROGRESS_OPTION } from "../../src/runner/monitor/progress.js";
import { SPEND_CAP_OPTIONS } from "../../src/runner/monitor/spendCap.js";
import { PROBES_OPTION } from "../../src/runner/probe/memoryProbe.js";
import { REJUDGE_OPTIONS } from "../../src/runner/resume/rejudge.js";
import { MATRIX_OPTIONS } from "../../src/runner/settings/jobSettings.js";
import { PROTOCOL_SETTINGS } from "../../src/runner/settings/protocolSettings.js";
import { SHARD_OPTIONS } from "../../src/runner/shards/shardPlan.js";
import { SFT_OPTIONS } from "../../src/training/buildSft.js";
import { CHECKPOINT_OPTIONS } from "../../src/training/checkpoints.js";
import { optionRows, readOption, usageToken, type Option } from "../../src/util/options.js";
import { UsageError } from "../../src/util/errors.js";
import { run } from "./capture.js";

const names = (rows: readonly Option<unknown>[]) => rows.map((r) => r.name);
const protocolNames = (command: "run" | "train-loop") => PROTOCOL_SETTINGS.flatMap((r) => (r.flag !== null && (command === "run" || r.flag.runOnly !== true) ? [r.flag.name] : []));
const recorded = (what: Option<unknown>) => names(optionRows(recordedRunOptions({ command: "x", what, subject: "s", from: "f", data: "d" })));

/** Each converted command and the flags of every table it offers. */
const COMMANDS: [string, string[]][] = [
  [
    "run",
    [
      "job",
      "smoke",
      ...names(optionRows(MATRIX_OPTIONS)),
      ...names(optionRows(CHECKPOINT_OPTIONS)),
      PROGRESS_OPTION.name,
      ...names(optionRows(PREFLIGHT_OPTIONS)),
      ESTIMATE_OPTION.name,
      ...names(optionRows(SPEND_CAP_OPTIONS)),
      ...names(optionRows(REJUDGE_OPTIONS)),
      ...protocolNames("run"),
      ...names(ENDPOINT_OPTION_ROWS),
      ...names(optionRows(SHARD_OPTIONS)),
      ...names(optionRows(VIEW_OPTIONS)),
      ...pathwayOptions().flatMap((p) => names(p.rows)),
    ],
  ],
  ["probe", [...recorded(PROBES_OPTION), ...names(ENDPOINT_OPTION_ROWS)]],
  ["rejudge", [...recorded(JUDGES_OPTION), ...names(ENDPOINT_OPTION_ROWS)]],
  ["build-sft", [...names(optionRows(SFT_OPTIONS)), ...names(ENDPOINT_OPTION_ROWS)]],
  ["train-loop", [...names(optionRows(SFT_OPTIONS)), PROGRESS_OPTION.name, ...protocolNames("train-loop"), ...names(ENDPOINT_OPTION_ROWS)]],
  ["power", ["data", "episodes", "metrics", "sims", "seed", "csv"]],
  ["compare", ["data", "a", "b", "metrics", "games", "bootstrap", "seed", "csv"]],
  ["report", ["data", "out", "bootstrap", "seed", "models", "require-complete", "include-flagged", "tex-intervals", ...names(optionRows(FIGURE_OPTIONS))]],
  ["view", ["data", "out", "serve", "port", "bootstrap", "seed", "workers", "heap-mb"]],
  ["sql", ["data", "schema", "csv", "json", "max-rows", "file", "precision", "no-cache"]],
  ["export", ["data", "out", "format", "bootstrap", "seed", "no-cache"]],
  ["figure", ["spec", "out", "game", "models", "pathways", "data", "bootstrap", "seed", ...names(optionRows(FIGURE_OPTIONS))]],
  ["serve", ["port", "host", "policy", "latency-ms", "fault-rate", "faults", "seed", "prefix-cache", "cache-tokens"]],
  ["play", ["game", "config", "seed", "policy", "actions", "json"]],
  ["finetune", ["train", "model", "backend", "suffix", "epochs", "base-url", "api-key-env", "poll-seconds", "max-wait-minutes", "dry-run", "data"]],
  ["notebooks", ["engine", "data", "out", "jobs", "timeout", "compare"]],
  ["status", ["data"]],
  ["cluster", ["shards", "data", "out", "report-out", "job-name", "cpus-per-task", "mem", "s3gym", "time", "partition", "image", "pvc"]],
];

describe("a converted command's --help lists every row it offers", () => {
  it.each(COMMANDS)("s3gym %s", async (command, flags) => {
    const help = await run(main, [command, "--help"]);
    expect(help.rc).toBe(0);
    // The run-only protocol row is absent from train-loop's list, so its help must not show it.
    if (command === "train-loop") expect(help.out).not.toContain("--checkpoint-every");
    const missing = flags.filter((f) => !new RegExp(`--${f}(?![a-z-])`).test(help.out));
    expect(missing).toEqual([]);
  });
});

describe("a bad value is refused naming the flag and what it takes (exit 2)", () => {
  const D = "/nonexistent-s3gym-options";
  const RUN = ["run", "--pathways", "none", "--models", "builtin:random", "--games", "snake", "--data", D];
  it.each([
    [[...RUN, "--progress", "x"], "s3gym run: unknown --progress 'x': expected one of auto, bar, lines, off\n"],
    [[...RUN, "--max-usd", "0"], "s3gym run: --max-usd must be a positive number (got '0'), dollars, e.g. --max-usd 5\n"],
    [[...RUN, "--max-input-tokens", "1.5"], "s3gym run: --max-input-tokens must be a positive integer (got '1.5')\n"],
    [[...RUN, "--rejudge", "oracle"], "s3gym run: --rejudge: expected self|verifier|shuffled|none|model:<spec>, got 'oracle'\n"],
    [[...RUN, "--rejudge", " "], "s3gym run: --rejudge is empty\n"],
    [[...RUN, "--rejudge-models", "a"], "s3gym run: --rejudge-models is only used with --rejudge (the judges to rejudge with)\n"],
    [[...RUN, "--rejudge", "none", "--rejudge-models", "zz"], "s3gym run: --rejudge-models: 'zz' is not one of --models\n"],
    [[...RUN, "--label", "x"], "s3gym run: --label is only used with --pathways training (add 'training' to --pathways, or drop it)\n"],
    [
      ["run", "--pathways", "hybrid", "--models", "builtin:random", "--games", "snake", "--data", D, "--hybrid-k", "x", "--estimate"],
      "s3gym run: --hybrid-k: expected an integer in 0..1000, got 'x'\n",
    ],
    [["probe"], "s3gym probe: --from is required: the run directory (or, with --data, the run id) whose memory is probed\n"],
    [["probe", "--from", "x", "--probe", " "], "s3gym probe: --probe is required: empty|shuffled|transplant:<run dir or run id> (a comma list for several)\n"],
    [["probe", "--from", "x", "--probe", "bogus"], "s3gym probe: --probe: unknown probe 'bogus': expected empty|shuffled|transplant:<run dir or run id>\n"],
    [["probe", "--from", "x", "--probe", "empty", "--progress", "fast"], "s3gym probe: unknown --progress 'fast': expected one of auto, bar, lines, off\n"],
    [["probe", "--from", "nowhere", "--probe", "empty"], "s3gym probe: --from nowhere: no such directory; a run id needs --data (the data directory that holds it)\n"],
    [["rejudge", "--from", "x"], "s3gym rejudge: --judge is required: self|verifier|shuffled|none|model:<spec> (a comma list for several)\n"],
    [["rejudge", "--from", "x", "--judge", "model:"], "s3gym rejudge: --judge: 'model:' names no model: write model:<spec>, e.g. model:builtin:heuristic or model:openai:gpt-4o-mini\n"],
    [["build-sft", "--data", D, "--out", `${D}/o.jsonl`, "--low-score", "x"], "s3gym build-sft: unknown --low-score 'x': expected one of drop, correct\n"],
    [["build-sft", "--data", D, "--out", `${D}/o.jsonl`, "--threshold", "x"], "s3gym build-sft: --threshold must be a number, got 'x'\n"],
    [["build-sft", "--data", D, "--out", `${D}/o.jsonl`, "--correct-model", "x"], "s3gym build-sft: --correct-model is only used with --low-score correct\n"],
    [["power", "--data", ","], "s3gym power: --data is required: a pilot data directory holding runs/<run_id>/\n"],
    [["power", "--data", D, "--episodes", "0,x"], "s3gym power: invalid --episodes '0,x': expected a comma list of integers >= 1 (e.g. 3,5,10)\n"],
    [["power", "--data", D, "--sims", "5"], "s3gym power: --sims must be at least 100 (range 100..1000000), got 5: the 95% quantile of the null needs them\n"],
    [["compare", "--a", "pathway=memory"], "s3gym compare: --data is required: a data directory holding runs/<run_id>/\n"],
    [["compare", "--data", D, "--b", "pathway=none"], "s3gym compare: --a is required: a selector such as pathway=memory, model=gpt-4o or checkpoint=30\n"],
    [["compare", "--data", D, "--a", "x=y", "--b", "pathway=none"], "s3gym compare: --a: unknown key 'x': expected one of pathway, model, checkpoint (e.g. pathway=memory)\n"],
    [["compare", "--data", D, "--a", "pathway=memory", "--b", "pathway=none", "--metrics", "avg,zz"], "s3gym compare: unknown --metrics 'zz': expected a comma list of avg, max, auc_plus, naba, y\n"],
    [["compare", "--data", D, "--a", "pathway=memory", "--b", "pathway=none", "--bootstrap", "0"], "s3gym compare: --bootstrap must be at least 1 (range 1..1000000), got 0\n"],
    [["report", "--data", D], "s3gym report: --out is required: the directory to write tables/ and figures into\n"],
    [["report", "--data", ",", "--out", D], "s3gym report: --data is required: a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)\n"],
    [["report", "--data", D, "--out", D, "--bootstrap", "0"], "s3gym report: --bootstrap must be at least 1 (range 1..1000000), got 0\n"],
    [["report", "--data", D, "--out", D, "--seed", "4294967296"], "s3gym report: --seed must be at most 4294967295 (range 0..4294967295), got 4294967296\n"],
    [["report", "--data", D, "--out", D, "--models", ","], "s3gym report: --models is empty: expected a comma list of model names as logged\n"],
    [["report", "--data", D, "--out", D, "--tex-intervals", "x"], "s3gym report: --tex-intervals must be one of cell, columns (got 'x')\n"],
    [["report", "--data", D, "--out", D, "--figure-size", "poster"], "s3gym report: --figure-size must be one of column, page, slide (got 'poster')\n"],
    [["view", "--data", ","], "s3gym view: --data is required: a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)\n"],
    [["view", "--data", D, "--port", "5"], "s3gym view: --port needs --serve\n"],
    [["view", "--data", D, "--heap-mb", "10"], "s3gym view: --heap-mb must be at least 32 (range 32..65536), got 10: a view worker's heap, in megabytes\n"],
    [["sql", "--data", D, "--precision", "0", "select 1"], "s3gym sql: --precision must be at least 1 (range 1..17), got 0: the significant digits printed\n"],
    [["sql", "--data", D, "--csv", "a", "--json", "select 1"], "s3gym sql: --csv and --json are alternatives: give one of them\n"],
    [["sql", "--max-rows", "x", "--data", D, "select 1"], "s3gym sql: --max-rows must be a non-negative integer in 0..1000000, got 'x'\n"],
    [["export", "--data", D], "s3gym export: --out is required: the folder to write the tables into\n"],
    [["export", "--data", D, "--out", D, "--format", "zz"], "s3gym export: unknown --format 'zz': expected one of parquet, csv, inspect, atif\n"],
    [["export", "--data", D, "--out", D, "--bootstrap", "5"], "s3gym export: --bootstrap and --seed apply to --format inspect only (the other formats hold no intervals)\n"],
    [["figure", "curves", "--game", " "], "s3gym figure: figure curves: --game is required (one game name)\n"],
    [["figure", "curves", "--game", "snake", "--models", "a", "--data", D, "--out", D, "--bootstrap", "0"], "s3gym figure: --bootstrap must be at least 1 (range 1..1000000), got 0\n"],
    [["figure", "curves", "--game", "snake", "--models", "a", "--data", D, "--out", D, "--figure-size", "poster"], "s3gym figure: --figure-size must be one of column, page, slide (got 'poster')\n"],
    [["serve", "--port", "70000"], "s3gym serve: --port must be an integer in 0..65535, got '70000'\n"],
    [["serve", "--faults", "429,zz"], "s3gym serve: --faults must be a comma list of 429, 500, timeout, garbage, empty, got '429,zz'\n"],
    [["serve", "--cache-tokens", "5"], "s3gym serve: --cache-tokens is the size of the simulated prefix cache: add --prefix-cache, or drop it\n"],
    [["play"], "s3gym play: --game is required: one of chess, minesweeper, nullify, tetris, snake, pvz, trust\n"],
    [["play", "--game", "chess", "--config", "eval"], "s3gym play: --seed is required (an integer in 0..4294967295)\n"],
    [["play", "--game", "chess", "--config", "eval", "--seed", "1", "--policy", "heuristic", "--actions", "f"], "s3gym play: give either --policy or --actions, not both\n"],
    [["finetune", "--train", "x", "--model", "m", "--epochs", "0"], "s3gym finetune: --epochs must be at least 1 (range 1..1000), got 0\n"],
    [["finetune", "--train", "x", "--model", "m", "--backend", "zz"], "s3gym finetune: --backend must be openai or builtin, got 'zz'\n"],
    [["finetune", "--train", D, "--model", "m", "--poll-seconds", "x"], "s3gym finetune: --poll-seconds must be a non-negative integer in 0..86400, got 'x'\n"],
    [["notebooks", "--jobs", "0"], "s3gym notebooks: --jobs must be at least 1 (range 1..256), got 0\n"],
    [["notebooks", "--engine", "zz"], "s3gym notebooks: unknown --engine 'zz': expected one of node, jupyter\n"],
    [["notebooks", "--compare", "", "--jobs", "0"], "s3gym notebooks: --compare is empty: expected a directory\n"],
    [["cluster", "slurm", "--shards", "0"], "s3gym cluster: --shards must be at least 1 (range 1..10000), got 0\n"],
    [["cluster", "slurm", "--shards", "2", "--data", " "], "s3gym cluster: --data is required: the directory every shard writes its shard-i-of-n under (shared by the nodes)\n"],
    [
      ["cluster", "slurm", "--shards", "2", "--data", D, "--models", "builtin:random", "--games", "snake", "--pathways", "none", "--mem", "x"],
      "s3gym cluster: --mem must be a size such as 4G or 4096M, got 'x'\n",
    ],
    [
      ["train-loop", "--progress", "x", "--model", "builtin:random", "--games", "snake", "--rounds", "1", "--trainer-cmd", "true", "--data", D],
      "s3gym train-loop: unknown --progress 'x': expected one of auto, bar, lines, off\n",
    ],
  ])("%j", async (argv, line) => {
    expect(await run(main, argv)).toEqual({ rc: 2, out: "", err: line });
  });
});

describe("a refusal that carries the usage keeps its words", () => {
  it("status without --data says what to give, then the usage derived from its row", async () => {
    const r = await run(main, ["status"]);
    expect(r.rc).toBe(2);
    expect(r.err).toMatch(/^s3gym status: --data is required: a shard directory or the directory that holds them\nusage: s3gym status --data DIR /);
  });
});

describe("the tables behind the flags", () => {
  it("the protocol settings have one set of defaults: an empty command line gives DEFAULT_SETTINGS", () => {
    expect(settingsFromFlags({})).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS.exploreEpisodes).toBe(30);
    // Rows left unset by default stay unset until their flag is given.
    expect("answerFrom" in settingsFromFlags({})).toBe(false);
    expect(settingsFromFlags({ "answer-from": "both" }).answerFrom).toBe("both");
  });

  it("probe and rejudge share one recorded-run table: the same rows but their own list", () => {
    const probe = recorded(PROBES_OPTION);
    const rejudge = recorded(JUDGES_OPTION);
    expect(probe).toEqual(["from", "probe", "data", "progress"]);
    expect(rejudge).toEqual(["from", "judge", "data", "progress"]);
  });

  it("a required row shows without brackets and is refused when absent or blank", () => {
    const row: Option<string> = { name: "thing", kind: { type: "text", shown: "T", parse: (v) => v }, default: undefined, required: "name one" };
    expect(usageToken(row)).toBe("--thing T");
    expect(usageToken({ ...row, required: undefined })).toBe("[--thing T]");
    expect(() => readOption(row, undefined)).toThrow(new UsageError("--thing is required: name one"));
    expect(() => readOption(row, "  ")).toThrow(UsageError);
    expect(readOption(row, "x")).toBe("x");
  });
});
