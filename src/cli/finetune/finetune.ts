/**
 * `s3gym finetune --train FILE --model BASE [flags]`: fine-tunes a base model on an SFT file through
 * the provider's API, or updates builtin:learner offline (`--backend builtin`). Its rows are
 * FINETUNE_OPTIONS (training/fineTuneJob.ts) and BUILTIN_FINETUNE_OPTIONS (training/builtinFineTune.ts).
 */
import { keyValueProblem, looksLikeKey, registerSecret, terminalSafe } from "../../models/secrets.js";
import { join } from "node:path";
import { BUILTIN_FINETUNE_OPTIONS, fineTuneBuiltin } from "../../training/builtinFineTune.js";
import { describeApiError, FINETUNE_OPTIONS, runFineTune } from "../../training/fineTuneJob.js";
import { validateSftFile } from "../../training/sftFormat.js";
import { optionFlags, optionRows, readOption, usageLines, type Option } from "../../util/options.js";
import { parseFlags, UsageError } from "../shared/args.js";

/** Every row, in the order `--help` lists them. */
const ROWS: Option<unknown>[] = [...optionRows(FINETUNE_OPTIONS), ...optionRows(BUILTIN_FINETUNE_OPTIONS)];

const USAGE = [`s3gym finetune --train FILE --model BASE [flags]`, ...usageLines(ROWS)].join("\n");

const FLAGS = optionFlags(ROWS);

/** Providers' usual default when no epoch count is given; only used for the dry-run estimate. */
const ESTIMATE_EPOCHS = 3;

export async function finetuneCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  const o = FINETUNE_OPTIONS;
  const read = <T>(row: Option<T>): T => readOption(row, values[row.name]) as T;
  if (!values.train) throw new UsageError(`--train is required\nusage: ${USAGE}`);
  if (!values.model) throw new UsageError(`--model is required (the base model id, e.g. gpt-4o-mini-2024-07-18)\nusage: ${USAGE}`);
  const train = values.train as string;
  const model = values.model as string;
  const epochs = read(o.epochs);
  const backend = read(o.backend);
  if (backend === "builtin") {
    // The offline update of builtin:learner: reads the SFT set, writes a content-addressed checkpoint.
    // A set it cannot read or learn from is thrown: src/cli/main.ts prints it and exits 1.
    const r = fineTuneBuiltin({ train, model, epochs: epochs ?? 1, outDir: join(read(BUILTIN_FINETUNE_OPTIONS.data), "checkpoints") });
    const per =
      Object.entries(r.counted)
        .map(([g, n]) => `${g} ${n}`)
        .join(", ") || "none";
    process.stderr.write(`read ${r.examples} examples; tactics counted per game: ${per}; wrote ${r.path}\n`);
    process.stdout.write(`${r.spec}\n`);
    return 0;
  }
  const pollSeconds = read(o.pollSeconds);
  const maxWaitMinutes = read(o.maxWaitMinutes);

  let report;
  try {
    report = await validateSftFile(train);
  } catch (e) {
    throw new UsageError(`cannot read --train file '${train}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // Everything finetune prints passes the redaction layer: an API error may echo the key or carry escapes.
  const err = (s: string) => process.stderr.write(`${terminalSafe(s)}\n`);
  for (const problem of report.errors.slice(0, 20)) err(`${train}: ${problem}`);
  if (report.errors.length > 20) err(`... and ${report.errors.length - 20} more problems`);
  const tokens = report.tokensPerExample;
  const summary = tokens.length
    ? `${report.examples} examples (${report.format}), tokens per example min ${Math.min(...tokens)} / mean ${Math.round(report.totalTokens / tokens.length)} / max ${Math.max(...tokens)}, total ${report.totalTokens}`
    : "no valid examples";
  err(summary);
  if (report.errors.length > 0 || report.examples === 0) return 1;

  if (read(o.dryRun)) {
    const e = epochs ?? ESTIMATE_EPOCHS;
    process.stdout.write(`dry run: ${summary}\nestimated trained tokens: ${report.totalTokens * e} (${e} epochs${epochs ? "" : ", assumed"}); no API call made\n`);
    return 0;
  }
  if (report.format !== "openai-chat") {
    throw new UsageError(`fine-tuning APIs take the openai-chat format; rebuild the file with 'build-sft --format openai-chat'`);
  }
  const keyEnv = read(o.apiKeyEnv);
  if (looksLikeKey(keyEnv)) {
    registerSecret(keyEnv);
    throw new UsageError("--api-key-env looks like a key, not the NAME of an environment variable (not shown); put the key in a variable (export MY_KEY=...) and name it (--api-key-env MY_KEY)");
  }
  const apiKey = process.env[keyEnv];
  if (!apiKey) throw new UsageError(`no API key: set the environment variable ${keyEnv} (or name another with --api-key-env)`);
  registerSecret(apiKey);
  const bad = keyValueProblem(apiKey);
  if (bad) throw new UsageError(`the value of ${keyEnv} ${bad}; set it again without the stray character`);
  try {
    const outcome = await runFineTune({
      trainFile: train,
      model: model,
      suffix: read(o.suffix),
      epochs,
      baseURL: read(o.baseUrl) ?? process.env.OPENAI_BASE_URL,
      apiKey,
      pollMs: pollSeconds * 1000,
      maxWaitMs: maxWaitMinutes * 60_000,
      onProgress: err,
    });
    if (outcome.fineTunedModel && outcome.status === "succeeded") {
      err(`evaluate it with: s3gym run --pathways training --checkpoints openai:${model},openai:${outcome.fineTunedModel}`);
      process.stdout.write(`${terminalSafe(outcome.fineTunedModel)}\n`);
      return 0;
    }
    err(`fine-tuning job ${outcome.jobId} ${outcome.status}: ${outcome.error ?? "no reason given"}`);
    return 1;
  } catch (e) {
    err(`fine-tuning API error ${describeApiError(e)}`);
    return 1;
  }
}
