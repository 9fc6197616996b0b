/**
 * redactSecrets' fast path (one scan that lets clean text skip the four replace passes) and
 * redactDeep's copy-on-change: neither may change what is redacted.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { clearSecrets, jsonMayHoldSecret, redactDeep, redactSecrets, registerSecret } from "../../src/util/secretText.js";

afterEach(() => clearSecrets());

describe("redactSecrets", () => {
  it("redacts each shape, in a text that has nothing else the fast path looks for", () => {
    expect(redactSecrets("use Bearer abc.def now")).toBe("use Bearer [redacted] now");
    expect(redactSecrets("BEARER\txyz")).toBe("Bearer [redacted]");
    expect(redactSecrets("key sk-abcdef123 here")).toBe("key [redacted key] here");
    expect(redactSecrets("hf_0123456789abcdefXYZ")).toBe("[redacted key]");
    expect(redactSecrets("see https://bob:pw@host/x")).toBe("see https://[redacted]@host/x");
    expect(redactSecrets("/v1?api-key=XYZ&a=1")).toBe("/v1?api-key=[redacted]&a=1");
  });

  it("returns clean text unchanged, the same string", () => {
    const text = "Step 3 of 64\nBoard:\n a b c\nAnswer: c11 c12\nScore: 0 (sk- alone is no key)";
    expect(redactSecrets(text)).toBe(text);
  });

  it("still removes a registered key when the text has none of the shapes", () => {
    registerSecret("Sentinel0123456789");
    expect(redactSecrets("reply: Sentinel0123456789 done")).toBe("reply: [redacted] done");
  });

  it("agrees with the four replace passes on any text built from the shapes' pieces", () => {
    // The passes themselves, always applied: the fast path may only skip them where they change nothing.
    const full = (t: string): string =>
      t
        .replace(/Bearer\s+[^\s"'\\,;]+/gi, "Bearer [redacted]")
        .replace(
          /\b(?:sk-[A-Za-z0-9_*.-]{6,}|sk_[A-Za-z0-9]{16,}|gsk_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_-]{20,}|xai-[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|nvapi-[A-Za-z0-9_-]{16,}|r8_[A-Za-z0-9]{16,})/g,
          "[redacted key]",
        )
        .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi, "$1[redacted]@")
        .replace(/([?&](?:api[-_]?key|key|token|access[-_]?token|auth|secret|password|sig|signature)=)[^&#\s"'<>]+/gi, "$1[redacted]");
    const piece = fc.constantFrom("Bearer ", "bearer\t", "sk-", "SK-", "hf_", "ghp_", "nvapi-", "://", "http", "@", "?", "&", "key", "token", "=", " ", "\n", "a", "Z", "0", "9", "_", "-", ".");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const t = parts.join("");
        expect(redactSecrets(t)).toBe(full(t));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("redactDeep", () => {
  it("returns a clean record itself (no copy)", () => {
    const rec = { a: "x", b: [1, "y", { c: null }], d: { e: "z" } };
    expect(redactDeep(rec)).toBe(rec);
  });

  it("copies only what changed, keeping key order, earlier fields and the input intact", () => {
    const inner = { k: "v" };
    const rec = { first: "clean", mid: inner, secret: "Bearer tok123", list: ["ok", "sk-abcdef123", "ok2"], last: 7 };
    const out = redactDeep(rec);
    expect(out).not.toBe(rec);
    expect(Object.keys(out)).toEqual(["first", "mid", "secret", "list", "last"]);
    expect(out).toEqual({ first: "clean", mid: inner, secret: "Bearer [redacted]", list: ["ok", "[redacted key]", "ok2"], last: 7 });
    expect(out.mid).toBe(inner);
    expect(rec.secret).toBe("Bearer tok123");
    expect(rec.list[1]).toBe("sk-abcdef123");
  });

  it("redacts object keys", () => {
    expect(redactDeep({ "sk-abcdef123": 1, b: 2 })).toEqual({ "[redacted key]": 1, b: 2 });
  });

  it("keeps a field named __proto__ when it copies a record (JSON can carry one)", () => {
    const rec = JSON.parse('{"__proto__": "kept", "secret": "Bearer tok123"}') as Record<string, unknown>;
    const out = redactDeep(rec);
    expect(JSON.stringify(out)).toBe('{"__proto__":"kept","secret":"Bearer [redacted]"}');
  });

  it("redacts a key registered after the same key was written clean (the keys' memo follows the registered values)", () => {
    const rec = { plainkey12345: 1, other: 2 };
    expect(redactDeep(rec)).toBe(rec);
    registerSecret("plainkey12345");
    expect(redactDeep(rec)).toEqual({ "[redacted]": 1, other: 2 });
    clearSecrets();
    expect(redactDeep(rec)).toBe(rec);
  });

  it("redacts keys as redactSecrets does, on random and key-shaped keys, seen once or many times", () => {
    const piece = fc.constantFrom("sk-", "sk_", "Bearer ", "://", "=", "a", "B", "0", "_", "-", "registeredvalue1", "AIza", "ghp_", "x".repeat(20));
    const keyArb = fc.oneof(
      fc.string(),
      fc.array(piece, { maxLength: 6 }).map((p) => p.join("")),
    );
    registerSecret("registeredvalue1");
    fc.assert(
      fc.property(fc.array(keyArb, { minLength: 1, maxLength: 6 }), (keys) => {
        for (let round = 0; round < 2; round++) {
          const out = redactDeep(Object.fromEntries(keys.map((k, i) => [k, i])));
          expect(out).toEqual(Object.fromEntries(keys.map((k, i) => [redactSecrets(k), i])));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("jsonMayHoldSecret (the log writer's one scan of a line's JSON text before it skips redactDeep)", () => {
  it("says no for an ordinary step line, yes for each kind of secret, also right after a character JSON escapes", () => {
    const clean = { observation: "Board:\n. . X\nscore=3? no", response: "Action: left\nScore: 0.5", tags: ["done", "score=3"] };
    expect(jsonMayHoldSecret(JSON.stringify(clean))).toBe(false);
    for (const text of [
      "Bearer\ntok123",
      "Bearer\u000btok123",
      "x\nsk-abcdef123",
      "x\u0001sk-abcdef123",
      '"gsk_' + "a".repeat(16),
      "https://u:p@h",
      "?api_key=zz",
      "\n&TOKEN=zz",
      "hf_" + "a".repeat(16),
    ]) {
      expect(redactDeep({ t: text }), JSON.stringify(text)).not.toEqual({ t: text });
      expect(jsonMayHoldSecret(JSON.stringify({ t: text })), JSON.stringify(text)).toBe(true);
      expect(jsonMayHoldSecret(JSON.stringify({ [text]: 1 })), JSON.stringify(text)).toBe(true);
      expect(jsonMayHoldSecret(JSON.stringify({ reasoning: { parts: [{ text }] } })), JSON.stringify(text)).toBe(true);
    }
  });

  it("follows the registered values (a key in a response, a nested reasoning field, URL-encoded), and says yes for every line while one of them holds a character JSON escapes", () => {
    const key = "plain+key/12345";
    const inResponse = { response: `the key is ${key}` };
    const inReasoning = { reasoning: { steps: ["think", `it was ${encodeURIComponent(key)}`] } };
    expect(jsonMayHoldSecret(JSON.stringify(inResponse))).toBe(false);
    registerSecret(key);
    for (const rec of [inResponse, inReasoning]) {
      expect(redactDeep(rec)).not.toEqual(rec);
      expect(jsonMayHoldSecret(JSON.stringify(rec))).toBe(true);
    }
    expect(jsonMayHoldSecret(JSON.stringify({ response: "clean" }))).toBe(false);
    registerSecret('quoted"key\\1');
    expect(jsonMayHoldSecret(JSON.stringify({ response: "clean" }))).toBe(true);
    clearSecrets();
    expect(jsonMayHoldSecret(JSON.stringify({ response: "clean" }))).toBe(false);
  });

  it("a key split across two fields is in neither field: redactDeep leaves both, and so the scan may pass the line (its JSON holds the halves apart)", () => {
    registerSecret("splitkey-ABCDEFGH");
    const rec = { response: "splitkey-", reasoning: "ABCDEFGH" };
    expect(redactDeep(rec)).toBe(rec);
    expect(jsonMayHoldSecret(JSON.stringify(rec))).toBe(false);
    // Joined in one field it is found by both.
    const joined = { response: "splitkey-ABCDEFGH" };
    expect(redactDeep(joined)).not.toBe(joined);
    expect(jsonMayHoldSecret(JSON.stringify(joined))).toBe(true);
  });

  it("never says no for a value redactDeep would change (random texts of the patterns' pieces, JSON's escapes and registered forms)", () => {
    const piece = fc.constantFrom(
      "sk-",
      "sk_",
      "gsk_",
      "Bearer",
      "bearer",
      "BeArEr",
      " ",
      "\n",
      "\t",
      "\u000b",
      "\u2028",
      '"',
      "\\",
      "://",
      "?",
      "&",
      "api_key",
      "API-KEY",
      "token",
      "Sig",
      "=",
      "a",
      "B",
      "0",
      "_",
      "-",
      ".",
      "@",
      "registeredvalue1",
      "cmVnaXN0ZXJlZHZhbHVlMQ",
      "AIza",
      "ghp_",
      "xai-",
      "nvapi-",
      "r8_",
      "hf_",
      "github_pat_",
      "x".repeat(20),
      "\ud800",
      "\udc00",
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(piece, { maxLength: 8 }).map((p) => p.join("")),
    );
    registerSecret("registeredvalue1");
    let changed = 0;
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), text, (values, key) => {
        const rec = { [key]: values, nested: { v: values[0] } };
        if (redactDeep(rec) !== rec) {
          changed++;
          expect(jsonMayHoldSecret(JSON.stringify(rec))).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    // The property was exercised: many of the records held something to redact.
    expect(changed).toBeGreaterThan(300);
  });
});
