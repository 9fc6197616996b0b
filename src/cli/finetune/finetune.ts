/**
 * `s3gym finetune --train FILE --model BASE [--suffix S] [--epochs N] [--base-url URL]
 *  [--api-key-env NAME] [--poll-seconds S] [--max-wait-minutes M] [--dry-run]`
 */
import { keyValueProblem, looksLikeKey, registerSecret, terminalSafe } from "../../models/secrets.js";
import { join } from "node:path";
import { fineTuneBuiltin } from "../../training/builtinFineTune.js";
import { describeApiError, runFineTune } from "../../training/fineTuneJob.js";
import { validateSftFile } from "../../training/sftFormat.js";
import { nonNegativeInt, parseFlags, UsageError } from "../shared/args.js";

const USAGE =
  "s3gym finetune --train FILE --model BASE [--backend openai|builtin] [--data DIR (builtin: checkpoints go to DIR/checkpoints)] [--suffix S] [--epochs N] [--base-url URL] [--api-key-env NAME] [--poll-seconds 10] [--max-wait-minutes 720] [--dry-run]";
/** Providers' usual default when no epoch count is given; only used for the dry-run estimate. */
const ESTIMATE_EPOCHS = 3;

export async function finetuneCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      train: { type: "string" },
      model: { type: "string" },
      suffix: { type: "string" },
      epochs: { type: "string" },
      "base-url": { type: "string" },
      "api-key-env": { type: "string" },
      "poll-seconds": { type: "string" },
      "max-wait-minutes": { type: "string" },
      "dry-run": { type: "boolean" },
      backend: { type: "string" },
      data: { type: "string" },
    },
    USAGE,
  );
  if (!values.train) throw new UsageError(`--train is required\nusage: ${USAGE}`);
  if (!values.model) throw new UsageError(`--model is required (the base model id, e.g. gpt-4o-mini-2024-07-18)\nusage: ${USAGE}`);
  const epochs = values.epochs === undefined ? undefined : nonNegativeInt("epochs", values.epochs, undefined, 1000);
  if (epochs === 0) throw new UsageError("--epochs must be at least 1");
  const backend = values.backend ?? "openai";
  if (backend !== "openai" && backend !== "builtin") throw new UsageError(`--backend must be openai or builtin, got '${backend}'`);
  if (backend === "builtin") {
    // The offline update of builtin:learner: reads the SFT set, writes a content-addressed checkpoint.
    // A set it cannot read or learn from is thrown: src/cli/main.ts prints it and exits 1.
    const r = fineTuneBuiltin({ train: values.train, model: values.model, epochs: epochs ?? 1, outDir: join(values.data ?? "data", "checkpoints") });
    const per =
      Object.entries(r.counted)
        .map(([g, n]) => `${g} ${n}`)
        .join(", ") || "none";
    process.stderr.write(`read ${r.examples} examples; tactics counted per game: ${per}; wrote ${r.path}\n`);
    process.stdout.write(`${r.spec}\n`);
    return 0;
  }
  const pollSeconds = nonNegativeInt("poll-seconds", values["poll-seconds"], 10, 86_400);
  const maxWaitMinutes = nonNegativeInt("max-wait-minutes", values["max-wait-minutes"], 720, 43_200);

  let report;
  try {
    report = await validateSftFile(values.train);
  } catch (e) {
    throw new UsageError(`cannot read --train file '${values.train}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // Everything finetune prints passes the redaction layer: an API error may echo the key or carry escapes.
  const err = (s: string) => process.stderr.write(`${terminalSafe(s)}\n`);
  for (const problem of report.errors.slice(0, 20)) err(`${values.train}: ${problem}`);
  if (report.errors.length > 20) err(`... and ${report.errors.length - 20} more problems`);
  const tokens = report.tokensPerExample;
  const summary = tokens.length
    ? `${report.examples} examples (${report.format}), tokens per example min ${Math.min(...tokens)} / mean ${Math.round(report.totalTokens / tokens.length)} / max ${Math.max(...tokens)}, total ${report.totalTokens}`
    : "no valid examples";
  err(summary);
  if (report.errors.length > 0 || report.examples === 0) return 1;

  if (values["dry-run"]) {
    const e = epochs ?? ESTIMATE_EPOCHS;
    process.stdout.write(`dry run: ${summary}\nestimated trained tokens: ${report.totalTokens * e} (${e} epochs${epochs ? "" : ", assumed"}); no API call made\n`);
    return 0;
  }
  if (report.format !== "openai-chat") {
    throw new UsageError(`fine-tuning APIs take the openai-chat format; rebuild the file with 'build-sft --format openai-chat'`);
  }
  const keyEnv = values["api-key-env"] ?? "OPENAI_API_KEY";
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
      trainFile: values.train,
      model: values.model,
      suffix: values.suffix,
      epochs,
      baseURL: values["base-url"] ?? process.env.OPENAI_BASE_URL,
      apiKey,
      pollMs: pollSeconds * 1000,
      maxWaitMs: maxWaitMinutes * 60_000,
      onProgress: err,
    });
    if (outcome.fineTunedModel && outcome.status === "succeeded") {
      err(`evaluate it with: s3gym run --pathways training --checkpoints openai:${values.model},openai:${outcome.fineTunedModel}`);
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
