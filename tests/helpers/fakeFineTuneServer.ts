/** A local stand-in for an OpenAI-compatible fine-tuning API, for the adapter's tests (127.0.0.1 only). */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type Scenario = "success" | "job_fails" | "create_rejected";

export interface FakeFineTuneServer {
  url: string;
  uploads: string[];
  createBodies: Record<string, unknown>[];
  authHeaders: string[];
  retrievals: number;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Jobs go validating_files -> queued -> running -> (succeeded | failed) over successive retrievals. */
export async function startFakeFineTuneServer(scenario: Scenario): Promise<FakeFineTuneServer> {
  const state: FakeFineTuneServer = { url: "", uploads: [], createBodies: [], authHeaders: [], retrievals: 0, close: async () => {} };
  const statuses = ["queued", "running", "running", scenario === "job_fails" ? "failed" : "succeeded"];
  const job = (status: string) => ({
    id: "ftjob-1",
    object: "fine_tuning.job",
    created_at: 1,
    error: status === "failed" ? { code: "invalid_training_file", message: "line 3: too many tokens", param: "training_file" } : null,
    fine_tuned_model: status === "succeeded" ? "ft:base-model:s3gym:abc123" : null,
    finished_at: null,
    hyperparameters: { n_epochs: 2 },
    model: "base-model",
    organization_id: "org",
    result_files: [],
    seed: 0,
    status,
    trained_tokens: null,
    training_file: "file-1",
    validation_file: null,
  });
  const server = createServer(async (req, res) => {
    state.authHeaders.push(String(req.headers.authorization ?? ""));
    const text = await body(req);
    const send = (code: number, value: unknown) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (req.method === "POST" && req.url === "/v1/files") {
      state.uploads.push(text);
      return send(200, { id: "file-1", object: "file", bytes: text.length, created_at: 1, filename: "train.jsonl", purpose: "fine-tune", status: "processed" });
    }
    if (req.method === "POST" && req.url === "/v1/fine_tuning/jobs") {
      state.createBodies.push(JSON.parse(text));
      if (scenario === "create_rejected") return send(400, { error: { message: "model 'base-model' is not available for fine-tuning", type: "invalid_request_error", param: "model", code: null } });
      return send(200, job("validating_files"));
    }
    if (req.method === "GET" && req.url?.startsWith("/v1/fine_tuning/jobs/ftjob-1/events")) {
      const n = Math.min(state.retrievals, statuses.length);
      const data = Array.from({ length: n }, (_, i) => ({ id: `ev-${i}`, object: "fine_tuning.job.event", created_at: i, level: "info", message: `step ${i} done`, type: "message" })).reverse();
      return send(200, { object: "list", data, has_more: false });
    }
    if (req.method === "GET" && req.url === "/v1/fine_tuning/jobs/ftjob-1") {
      const status = statuses[Math.min(state.retrievals, statuses.length - 1)]!;
      state.retrievals++;
      return send(200, job(status));
    }
    send(404, { error: { message: `no route ${req.method} ${req.url}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
