/**
 * What the server said reaches the user (every error body shape), made safe (control characters
 * escaped, keys redacted, cut), and replies that break the chat-completion protocol are failures,
 * never a model's empty answer. Against fakes of each endpoint family on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { messageOfErrorBody, safeServerText } from "../../src/models/errorBody.js";
import { OpenAIModel, requestBody } from "../../src/models/openaiModel.js";
import { AttemptError } from "../../src/models/retry.js";
import { clearSecrets, redactSecrets, registerSecret } from "../../src/models/secrets.js";
import { escapeControl } from "../../src/util/outsideText.js";
import { startFake, type FakeEndpoint, type FakeOptions } from "../helpers/fakeEndpoints.js";
import { request, SENTINEL_KEY } from "./helpers.js";

let fake: FakeEndpoint | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
  clearSecrets();
});

async function modelOn(o: FakeOptions, model = "fake-model") {
  fake = await startFake(o);
  return new OpenAIModel({ spec: `openai:${model}`, model, baseUrl: fake.url, apiKey: SENTINEL_KEY, timeoutMs: 10_000 });
}

async function failure(p: Promise<unknown>): Promise<AttemptError> {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(AttemptError);
  return e as AttemptError;
}

describe("error bodies of every shape say what the server said", () => {
  it("parses each shape by hand", () => {
    expect(messageOfErrorBody('{"error": {"message": "bad temperature", "type": "invalid_request_error"}}')).toBe("bad temperature");
    expect(messageOfErrorBody('{"object": "error", "message": "context too long", "type": "BadRequestError", "code": 400}')).toBe("context too long");
    expect(messageOfErrorBody('{"error": "model \\"x\\" not found, try pulling it first"}')).toBe('model "x" not found, try pulling it first');
    expect(messageOfErrorBody('{"detail": [{"loc": ["body"], "msg": "field required"}, {"msg": "extra"}]}')).toBe("field required; extra");
    expect(messageOfErrorBody('[{"error": {"code": 400, "message": "API key not valid", "status": "INVALID_ARGUMENT"}}]')).toBe("API key not valid");
    expect(messageOfErrorBody("<html><body>502 Bad Gateway</body></html>")).toBe("<html><body>502 Bad Gateway</body></html>");
    expect(messageOfErrorBody("")).toBe("(empty body)");
    expect(messageOfErrorBody('{"unexpected": 1}')).toBe('{"unexpected": 1}');
  });

  it("vLLM's old body shape is reported with its message, not as 'no body'", async () => {
    const m = await modelOn({ family: "vllm", vllmErrors: "old", maxModelLen: 200 });
    const e = await failure(m.complete(request({ sampling: { max_tokens: 150 } })));
    expect(e.kind).toBe("http_4xx");
    expect(e.message).toMatch(/^HTTP 400: This model's maximum context length is 200 tokens/);
    expect(e.message).not.toContain("no body");
  });

  it("vLLM's new body shape, Ollama's string error and OpenAI's unsupported parameter", async () => {
    let m = await modelOn({ family: "vllm", vllmErrors: "new", maxModelLen: 200 });
    expect((await failure(m.complete(request({ sampling: { max_tokens: 150 } })))).message).toContain("maximum context length is 200");
    await fake!.close();
    m = await modelOn({ family: "ollama" }, "llama3-not-pulled");
    expect((await failure(m.complete(request()))).message).toBe('HTTP 404: model "llama3-not-pulled" not found, try pulling it first');
    await fake!.close();
    m = await modelOn({ family: "openai" });
    const e = await failure(m.complete(request({ sampling: { max_tokens: 5 } })));
    expect(e.message).toContain("Unsupported parameter: 'max_tokens'");
  });

  it("escapes OSC, CSI and carriage returns in an error body, and redacts every key in use", async () => {
    registerSecret("gsk_OTHERKEY0123456789abcdef");
    const hostile = "\u001b]0;pwned\u0007\u001b[2J\rcomplete \u202e key gsk_OTHERKEY0123456789abcdef and " + SENTINEL_KEY;
    const m = await modelOn({ family: "openai", rawReply: () => [500, JSON.stringify({ error: { message: hostile } })] });
    const e = await failure(m.complete(request()));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts no control character reaches the output
    expect(e.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(e.message).toContain("\\x1b]0;pwned\\x07\\x1b[2J");
    expect(e.message).toContain("\\u202e");
    expect(e.message).not.toContain("OTHERKEY");
    expect(e.message).not.toContain("SENTINEL");
  });

  it("cuts a huge body to a readable line with its length", () => {
    const s = safeServerText("x".repeat(100_000), 300);
    expect(s.length).toBeLessThan(340);
    expect(s).toContain("(100000 chars)");
  });

  it("redacts registered values (8+ chars) but leaves placeholders such as EMPTY alone", () => {
    registerSecret("EMPTY");
    registerSecret("my-local-token-123");
    expect(redactSecrets("EMPTY key; token my-local-token-123")).toBe("EMPTY key; token [redacted]");
    expect(escapeControl("a\nb\tc\r", { keepNewlines: true })).toBe("a\nb\tc\\r");
    expect(escapeControl("a\nb")).toBe("a\\nb");
  });
});

describe("protocol errors are failures, never answers", () => {
  const reply = (message: unknown) => JSON.stringify({ id: "x", object: "chat.completion", choices: [{ index: 0, message, finish_reason: "stop" }] });

  it("content as an array of parts is a protocol error, not retried", async () => {
    const m = await modelOn({ family: "openai", rawReply: () => [200, reply({ role: "assistant", content: [{ type: "text", text: "Answer: UP\nScore: 1" }] })] });
    const e = await failure(m.complete(request()));
    expect(e.kind).toBe("protocol");
    expect(e.retryable).toBe(false);
    expect(e.message).toContain("content is an array");
  });

  it("content as a number is a protocol error", async () => {
    const m = await modelOn({ family: "openai", rawReply: () => [200, reply({ role: "assistant", content: 42 })] });
    expect((await failure(m.complete(request()))).message).toContain("content is a number");
  });

  it("null content is the model saying nothing (data), as reasoning-only models do", async () => {
    const m = await modelOn({ family: "reasoning-only", nullContent: true });
    const r = await m.complete(request());
    expect(r.text).toBe("");
    expect(r.reasoning).toContain("## Strategies to retain");
  });

  it("a 200 with an error body keeps the server's message", async () => {
    const m = await modelOn({ family: "ollama", rawReply: () => [200, JSON.stringify({ error: { message: "CUDA out of memory on device 0" } })] });
    const e = await failure(m.complete(request()));
    expect(e.kind).toBe("bad_response");
    expect(e.message).toContain("CUDA out of memory on device 0");
    await fake!.close();
    const m2 = await modelOn({ family: "ollama", rawReply: () => [200, JSON.stringify({ error: "model requires more system memory" })] });
    expect((await failure(m2.complete(request()))).message).toContain("model requires more system memory");
  });

  it("missing choices stays a retryable bad response", async () => {
    const m = await modelOn({ family: "openai", rawReply: () => [200, JSON.stringify({ id: "x", choices: [] })] });
    const e = await failure(m.complete(request()));
    expect(e.kind).toBe("bad_response");
    expect(e.retryable).toBe(true);
  });

  it("extra_body may not override model, messages or stream", () => {
    expect(() => requestBody("m", request({ sampling: { extra_body: { model: "other" } } }), "max_tokens")).toThrow(/extra_body may not set model/);
    expect(() => requestBody("m", request({ sampling: { extra_body: { messages: [] } } }), "max_tokens")).toThrow(/messages/);
    expect(requestBody("m", request({ sampling: { extra_body: { reasoning_effort: "low" } } }), "max_tokens")).toMatchObject({ model: "m", reasoning_effort: "low" });
  });
});
