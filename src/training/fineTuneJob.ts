/**
 * The fine-tuning API adapter: upload a training file, create a job, poll it to the end, through the
 * `openai` package (any OpenAI-compatible fine-tuning endpoint). Parameter updates happen outside
 * the kit; the resulting model id is then evaluated as a checkpoint.
 */
import { createReadStream } from "node:fs";
import OpenAI, { toFile } from "openai";

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
