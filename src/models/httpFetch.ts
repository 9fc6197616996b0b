/**
 * The HTTP transport under the `openai` client: a minimal `fetch` over node:http / node:https.
 *
 * Why not Node's built-in fetch: it runs on undici, whose dispatcher has its own 300 s headers and
 * body timeouts. A non-streaming chat completion sends no header until the whole reply is generated,
 * so any call longer than 5 minutes (a reasoning model writing 14,000 tokens, a busy vLLM queue) died
 * at 300 s as "Request timed out", whatever `--timeout-ms` said (default 600 s), and was retried
 * into the same wall. Here nothing times out on its own: the caller's AbortSignal (the per-attempt
 * deadline of `--timeout-ms`) is the only clock.
 *
 * Scope: what the `openai` client sends (a string or byte body, or none) and reads (status, headers,
 * a streamed body). Anything else (a stream body) goes to the built-in fetch. Connections are kept
 * alive per protocol, as fetch's own pool does; compressed answers are decompressed.
 */
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import { Readable, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

type FetchInput = string | URL | Request;

function bodyBytes(body: unknown): Buffer | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return undefined; // not ours: a stream, a FormData, a Blob ...
}

function responseHeaders(res: IncomingMessage): Headers {
  const h = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // A header fetch would refuse (invalid characters): skip it as fetch would fail on it.
    }
  }
  return h;
}

function decoded(res: IncomingMessage): Readable {
  const enc = (res.headers["content-encoding"] ?? "").toString().trim().toLowerCase();
  const z = enc === "gzip" || enc === "x-gzip" ? createGunzip() : enc === "deflate" ? createInflate() : enc === "br" ? createBrotliDecompress() : null;
  if (!z) return res;
  res.on("error", (e) => z.destroy(e));
  return res.pipe(z);
}

/**
 * The most bytes of one response body read (a body that streamed forever took a run from
 * 0.6 to 14.9 GB). 4 MiB is far above any chat completion a step asks for (max_new_tokens of text),
 * so only a broken or hostile server meets it. Counted while the body streams: never buffered whole.
 */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

/** A response body that went past MAX_REPLY_BYTES: the reply is recorded as `oversize` (data). */
export class ReplyTooLargeError extends Error {
  override name = "ReplyTooLargeError";
  constructor(readonly limitBytes: number) {
    super(`the response body exceeded ${limitBytes} bytes (the reply size cap) and was not read further`);
  }
}

/** `body` that fails with ReplyTooLargeError (and stops the socket) once past `max` bytes. */
function capped(body: Readable, res: IncomingMessage, max: number): Readable {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) {
        res.destroy();
        done(new ReplyTooLargeError(max));
      } else done(null, chunk);
    },
  });
  body.on("error", (e) => cap.destroy(e));
  return body.pipe(cap);
}

/** Redirects followed (307 and 308 only: they keep the method and the body, as fetch does). */
const MAX_REDIRECTS = 5;

/** A `fetch` for the openai client whose only timeout is the caller's signal. */
export async function httpFetch(input: FetchInput, init: RequestInit = {}): Promise<Response> {
  let url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const body = bodyBytes(init.body);
  if ((url.protocol !== "http:" && url.protocol !== "https:") || body === undefined || input instanceof Request) return fetch(input, init);
  const headers = new Headers(init.headers);
  // Ask for an uncompressed answer (decoded anyway if a proxy compresses it).
  headers.set("accept-encoding", "identity");
  if (body) headers.set("content-length", String(body.length));
  const method = (init.method ?? "GET").toUpperCase();
  const signal = init.signal ?? undefined;
  for (let hop = 0; ; hop++) {
    const res = await once(url, method, headers, body, signal);
    const location = res.headers.get("location");
    if ((res.status !== 307 && res.status !== 308) || !location || hop >= MAX_REDIRECTS) return res;
    await res.body?.cancel();
    const next = new URL(location, url);
    if (next.protocol !== "http:" && next.protocol !== "https:") return res;
    // Like fetch: credentials never follow a redirect to another origin.
    if (next.origin !== url.origin) for (const h of ["authorization", "cookie", "proxy-authorization"]) headers.delete(h);
    url = next;
  }
}

function once(url: URL, method: string, headers: Headers, body: Buffer | null, signal: AbortSignal | undefined): Promise<Response> {
  signal?.throwIfAborted();
  return new Promise<Response>((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method,
        headers: Object.fromEntries(headers.entries()),
        agent: url.protocol === "https:" ? agents.https : agents.http,
        ...(signal ? { signal } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const noBody = method === "HEAD" || status === 204 || status === 205 || status === 304;
        if (noBody) res.resume();
        try {
          resolve(
            new Response(noBody ? null : (Readable.toWeb(capped(decoded(res), res, MAX_REPLY_BYTES)) as ReadableStream<Uint8Array>), {
              status,
              statusText: res.statusMessage ?? "",
              headers: responseHeaders(res),
            }),
          );
        } catch (e) {
          res.destroy();
          reject(e);
        }
      },
    );
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}
