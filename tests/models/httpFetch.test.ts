/**
 * The HTTP transport under the openai client. Node's built-in fetch (undici) cuts any request whose
 * headers take more than 300 s, whatever timeout the caller set: a non-streaming 14,000-token reply
 * failed at 300 s with `--timeout-ms 600000` (measured: "Request timed out" after 300.9 s), then
 * was retried into the same wall. httpFetch has no clock of its own: only the caller's signal.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { httpFetch } from "../../src/models/httpFetch.js";
import { OpenAIModel } from "../../src/models/openaiModel.js";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { request } from "./helpers.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const srv = createServer(handler);
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  closers.push(
    () =>
      new Promise((r) => {
        srv.closeAllConnections();
        srv.close(r);
      }),
  );
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

describe("httpFetch", () => {
  it("the openai model sends through it, never through the built-in fetch (undici's 300 s headers timeout)", async () => {
    const server: RunningServer = await startServer();
    closers.push(() => server.close());
    const builtin = vi.spyOn(globalThis, "fetch");
    const m = new OpenAIModel({ spec: "openai:s3gym-heuristic", model: "s3gym-heuristic", baseUrl: server.url, apiKey: "EMPTY", timeoutMs: 600_000 });
    const r = await m.complete(request());
    expect(r.text).toContain("## Strategies to retain");
    expect(builtin).not.toHaveBeenCalled();
  });

  it("posts the body and headers, and returns status, headers and body as fetch does", async () => {
    const seen: { method?: string; auth?: string; type?: string; length?: string; body?: string } = {};
    const url = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        Object.assign(seen, { method: req.method, auth: req.headers.authorization, type: req.headers["content-type"], length: req.headers["content-length"], body: Buffer.concat(chunks).toString() });
        res.writeHead(429, { "content-type": "application/json", "retry-after": "2", "x-multi": ["a", "b"] });
        res.end('{"error": {"message": "slow down"}}');
      });
    });
    const body = JSON.stringify({ messages: [{ role: "user", content: "héllo" }] });
    const r = await httpFetch(`${url}/v1/chat/completions`, { method: "post", headers: { authorization: "Bearer t", "content-type": "application/json" }, body });
    expect(seen).toEqual({ method: "POST", auth: "Bearer t", type: "application/json", length: String(Buffer.byteLength(body)), body });
    expect(r.status).toBe(429);
    expect(r.ok).toBe(false);
    expect(r.headers.get("retry-after")).toBe("2");
    expect(r.headers.get("x-multi")).toBe("a, b");
    expect(await r.json()).toEqual({ error: { message: "slow down" } });
  });

  it("waits for late headers as long as the caller's signal allows, and no longer", async () => {
    const url = await listen((req, res) => {
      req.resume();
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("late");
      }, 300);
    });
    expect(await (await httpFetch(url, { signal: AbortSignal.timeout(3000) })).text()).toBe("late");
    const e = await httpFetch(url, { signal: AbortSignal.timeout(50) }).catch((x: unknown) => x);
    expect((e as Error).name).toMatch(/AbortError|TimeoutError/);
  });

  it("follows 307/308 with the method and body, and never carries the key to another origin", async () => {
    const seen: Array<{ at: string; method?: string; auth?: string; body: string }> = [];
    const record = (at: string, req: IncomingMessage, then: (res: ServerResponse) => void) => (res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ at, method: req.method, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), body: Buffer.concat(chunks).toString() });
        then(res);
      });
    };
    const other = await listen((req, res) => record("other", req, (r) => r.end("there"))(res));
    const home = await listen((req, res) =>
      record(req.url!, req, (r) => {
        if (req.url === "/a") r.writeHead(308, { location: "/b" }).end();
        else if (req.url === "/b") r.writeHead(307, { location: `${other}/c` }).end();
        else r.end("?");
      })(res),
    );
    const r = await httpFetch(`${home}/a`, { method: "POST", headers: { authorization: "Bearer secret" }, body: "x=1" });
    expect(await r.text()).toBe("there");
    expect(seen).toEqual([
      { at: "/a", method: "POST", auth: "Bearer secret", body: "x=1" },
      { at: "/b", method: "POST", auth: "Bearer secret", body: "x=1" },
      { at: "other", method: "POST", body: "x=1" },
    ]);
  });

  it("decodes a compressed answer", async () => {
    const url = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync('{"ok": true}'));
    });
    expect(await (await httpFetch(url)).json()).toEqual({ ok: true });
  });
});
