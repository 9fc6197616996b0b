/**
 * The fine-tuning API adapter: upload a training file, create a job, poll it to the end, through the
 * `openai` package (any OpenAI-compatible fine-tuning endpoint). Parameter updates happen outside
 * the kit; the resulting model id is then evaluated as a checkpoint.
 */
import { createReadStream } from "node:fs";
import OpenAI, { toFile } from "openai";
import { UsageError } from "../util/errors.js";
import { asGiven, type OptionTable } from "../util/options.js";

/** The fine-tuning backends: a provider's fine-tuning API, or the offline update of builtin:learner (builtinFineTune.ts). */
export const FINETUNE_BACKENDS = ["openai", "builtin"] as const;

/**
 * `s3gym finetune`'s rows: the job's file, base model and backend, and the provider job's settings
 * (the builtin backend's checkpoint folder is BUILTIN_FINETUNE_OPTIONS, builtinFineTune.ts). The
 * required rows are checked by the command (their refusals carry the usage).
 */
export const FINETUNE_OPTIONS: OptionTable<{
  train: string | undefined;
  model: string | undefined;
  backend: (typeof FINETUNE_BACKENDS)[number];
  suffix: string | undefined;
  epochs: number | undefined;
  baseUrl: string | undefined;
  apiKeyEnv: string;
  pollSeconds: number;
  maxWaitMinutes: number;
  dryRun: boolean;
}> = {
  train: { name: "train", kind: { type: "text", shown: "FILE", parse: asGiven }, default: undefined, help: "the SFT file (build-sft's output) to train on (required)" },
  model: { name: "model", kind: { type: "text", shown: "BASE", parse: asGiven }, default: undefined, help: "the base model id, e.g. gpt-4o-mini-2024-07-18 (required)" },
  backend: {
    name: "backend",
    kind: {
      type: "text",
      shown: FINETUNE_BACKENDS.join("|"),
      parse: (v: string) => {
        if (!(FINETUNE_BACKENDS as readonly string[]).includes(v)) throw new UsageError(`--backend must be openai or builtin, got '${v}'`);
        return v as (typeof FINETUNE_BACKENDS)[number];
      },
    },
    default: "openai",
    help: "openai (default: the provider's fine-tuning API) or builtin (builtin:learner's offline update)",
  },
  suffix: { name: "suffix", kind: { type: "text", shown: "S", parse: asGiven }, default: undefined, help: "the fine-tuned model's name suffix (openai)" },
  epochs: {
    name: "epochs",
    kind: { type: "int", range: { min: 1, max: 1000 } },
    arg: "N",
    default: undefined,
    help: "training epochs (default: the provider's; builtin: 1)",
  },
  baseUrl: { name: "base-url", kind: { type: "text", shown: "URL", parse: asGiven }, default: undefined, help: "the fine-tuning API's base URL (default $OPENAI_BASE_URL, else OpenAI's)" },
  apiKeyEnv: { name: "api-key-env", kind: { type: "text", shown: "NAME", parse: asGiven }, default: "OPENAI_API_KEY", help: "the environment variable holding the API key (default OPENAI_API_KEY)" },
  pollSeconds: { name: "poll-seconds", kind: { type: "int", range: { min: 0, max: 86_400 } }, default: 10, help: "seconds between checks of the job" },
  maxWaitMinutes: { name: "max-wait-minutes", kind: { type: "int", range: { min: 0, max: 43_200 } }, default: 720, help: "stop waiting for the job after this many minutes" },
  dryRun: { name: "dry-run", kind: { type: "switch", on: true }, default: false, help: "check the file and estimate the trained tokens; no API call" },
};

export interface FineTuneOptions {
  trainFile: string;
  model: string;
  suffix?: string;
  epochs?: number;
  baseURL?: string;
  /** The key itself (resolved from the environment by the caller); only ever sent as a header. */
  apiKey: string;
  /** Polling interval in milliseconds. */
  pollMs: number;
  /** Give up polling after this long (ms); the job keeps running on the provider. */
  maxWaitMs: number;
  /** Status lines for the user (status changes and new job events). */
  onProgress: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

export interface FineTuneOutcome {
  jobId: string;
  status: string;
  /** The fine-tuned model id on success, else null. */
  fineTunedModel: string | null;
  /** The API's reason on failure, else null. */
  error: string | null;
}

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

/** Error text for the user: the API's own message and status, never request headers. */
export function describeApiError(e: unknown): string {
  if (e instanceof OpenAI.APIError)
    return `${e.status ?? "no status"}: ${e.error && typeof e.error === "object" && "message" in e.error ? String((e.error as { message: unknown }).message) : e.message}`;
  return e instanceof Error ? e.message : String(e);
}

export async function runFineTune(opts: FineTuneOptions): Promise<FineTuneOutcome> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const client = new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseURL, maxRetries: 2 });
  const upload = await client.files.create({ file: await toFile(createReadStream(opts.trainFile), opts.trainFile.split("/").pop()), purpose: "fine-tune" });
  opts.onProgress(`uploaded ${opts.trainFile} as ${upload.id}`);
  let job = await client.fineTuning.jobs.create({
    training_file: upload.id,
    model: opts.model,
    ...(opts.suffix ? { suffix: opts.suffix } : {}),
    ...(opts.epochs ? { hyperparameters: { n_epochs: opts.epochs } } : {}),
  });
  opts.onProgress(`job ${job.id} created (${job.status})`);
  const seenEvents = new Set<string>();
  let lastStatus = job.status as string;
  let waited = 0;
  while (!TERMINAL.has(job.status)) {
    if (waited >= opts.maxWaitMs) {
      return { jobId: job.id, status: job.status, fineTunedModel: null, error: `stopped waiting after ${Math.round(waited / 1000)}s; the job is still ${job.status} on the provider` };
    }
    await sleep(opts.pollMs);
    waited += opts.pollMs;
    job = await client.fineTuning.jobs.retrieve(job.id);
    const events = await client.fineTuning.jobs.listEvents(job.id, { limit: 20 });
    for (const ev of [...events.data].reverse()) {
      if (!seenEvents.has(ev.id)) {
        seenEvents.add(ev.id);
        opts.onProgress(`  ${ev.message}`);
      }
    }
    if (job.status !== lastStatus) {
      opts.onProgress(`job ${job.id}: ${lastStatus} -> ${job.status}`);
      lastStatus = job.status;
    }
  }
  const error = job.status === "succeeded" ? null : job.error ? `${job.error.code}: ${job.error.message}` : `job ${job.status}`;
  return { jobId: job.id, status: job.status, fineTunedModel: job.fine_tuned_model, error };
}
