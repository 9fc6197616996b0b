/**
 * The one redaction layer: every path that writes or prints text (terminal, log
 * lines, cache entries, manifests, the view site and notebooks that read them, finetune, preflight,
 * errors) passes it through `redactSecrets`, directly or through the log writers (`redactDeep`).
 *
 * What is removed:
 *   - every registered key value (models/assembleModel.ts registers each key variable a run reads), and
 *     its encoded forms: base64 (standard and URL-safe, at each of the 3 byte alignments, so a key
 *     inside a longer base64 blob such as `Basic <user:key>` is found too) and URL-encoding;
 *   - anything shaped like a bearer token or a well-known provider key;
 *   - URL userinfo (`https://user:PASS@host`) and the values of key-like query parameters
 *     (`?api-key=...`, `&token=...`).
 * Values shorter than MIN_SECRET_LENGTH are not treated as secrets: local servers take placeholders
 * such as `EMPTY`, and blanking every "EMPTY" would mangle text without protecting anything.
 * Linear in the text for a fixed set of keys.
 */

export const MIN_SECRET_LENGTH = 8;

/** Each registered value with its encoded forms (computed once, at registration). */
const registered = new Map<string, string[]>();

/**
 * Every registered form, when each is its own JSON text between quotes (holds no character
 * JSON.stringify escapes: `"`, a backslash, a control character, a lone surrogate): then a form
 * inside a string is also verbatim inside that string's JSON text. Null when some form is not
 * (`jsonMayHoldSecret` then always says yes).
 */
let plainForms: string[] | null = [];

function refreshPlainForms(): void {
  const all = [...registered.values()].flat();
  plainForms = all.some((f) => JSON.stringify(f) !== `"${f}"`) ? null : all;
}

/** The forms a key can take in text: itself, URL-encoded, base64 at each alignment. */
function formsOf(value: string): string[] {
  const forms = new Set<string>([value, encodeURIComponent(value)]);
  const bytes = Buffer.from(value, "utf8");
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    // Drop the characters that also encode the padding bytes before and the unknown bytes after.
    const lead = shift === 0 ? 0 : shift === 1 ? 2 : 3;
    const fullQuanta = Math.floor((shift + bytes.length) / 3) * 4;
    const inner = b64.slice(lead, fullQuanta);
    for (const f of [inner, inner.replace(/\+/g, "-").replace(/\//g, "_")]) if (f.length >= MIN_SECRET_LENGTH) forms.add(f);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Remembers a key value so that every later error, log line or printed text is scrubbed of it. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value === "string" && value.length >= MIN_SECRET_LENGTH && !registered.has(value)) {
    registered.set(value, formsOf(value));
    redactedKeys.clear();
    refreshPlainForms();
  }
}

/** Test hook: forget the registered values. */
export function clearSecrets(): void {
  registered.clear();
  redactedKeys.clear();
  refreshPlainForms();
}

/**
 * Object keys as redactSecrets gives them under the registered values of now (emptied whenever
 * those change): a log record's field names are the same few dozen on every line, and scanning
 * each again was a third of redacting a record. Bounded: a record may carry keys from outside.
 */
const redactedKeys = new Map<string, string>();
const REDACTED_KEYS_MAX = 4096;

function redactKey(key: string): string {
  let r = redactedKeys.get(key);
  if (r === undefined) {
    r = redactSecrets(key);
    if (redactedKeys.size >= REDACTED_KEYS_MAX) redactedKeys.clear();
    redactedKeys.set(key, r);
  }
  return r;
}

/** Provider key shapes (OpenAI, Groq, Anthropic, Hugging Face, Google, xAI, GitHub, NVIDIA, Replicate, OpenRouter). */
const KEY_SHAPES =
  /\b(?:sk-[A-Za-z0-9_*.-]{6,}|sk_[A-Za-z0-9]{16,}|gsk_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_-]{20,}|xai-[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|nvapi-[A-Za-z0-9_-]{16,}|r8_[A-Za-z0-9]{16,})/g;

/** `scheme://user:password@` (or `user@`): the credentials a base URL may carry. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/** The value of a query parameter whose name says it is a credential. */
const KEY_PARAM = /([?&](?:api[-_]?key|key|token|access[-_]?token|auth|secret|password|sig|signature)=)[^&#\s"'<>]+/gi;

/**
 * Matches wherever any of the four patterns below could (a superset: `i` widens KEY_SHAPES): one
 * scan that tells a clean text (almost every log string) apart, so it skips the four replace passes.
 */
const MAYBE_SECRET = new RegExp(`bearer\\s|://|=|${KEY_SHAPES.source}`, "i");

/**
 * What every match of the four patterns below holds as literal text: `bearer` in any case, `://`, a
 * provider key's prefix (KEY_SHAPES is case-sensitive), and (KEY_PARAM_JSON, tried only when the text
 * has a `=`) a credential parameter's name with its `?`/`&` and `=`. JSON.stringify escapes none of
 * their characters, so a string or key a pattern matches puts the literal into the JSON text too.
 * Literal alternatives only: one scan of a whole line costs less than the walk over its strings.
 */
const MAYBE_SECRET_JSON = /[Bb][Ee][Aa][Rr][Ee][Rr]|:\/\/|sk[-_]|hf_|AIza|xai-|gh[pousr]_|github_pat_|nvapi-|r8_/;
const KEY_PARAM_JSON = /[?&](?:api[-_]?key|key|token|access[-_]?token|auth|secret|password|sig|signature)=/i;

/**
 * Whether `json`, the JSON.stringify text of plain data (a log record: plain objects, arrays,
 * strings, numbers, booleans, null; no toJSON), may hold something `redactDeep` would change. False
 * proves it clean: every registered form is JSON-plain and absent from the text, and no pattern can
 * match any of its strings or keys, so `redactDeep` would return the value itself. The writer scans
 * the text it makes anyway, instead of walking every string and key of the record.
 */
export function jsonMayHoldSecret(json: string): boolean {
  if (plainForms === null) return true;
  for (const f of plainForms) if (json.includes(f)) return true;
  return MAYBE_SECRET_JSON.test(json) || (json.includes("=") && KEY_PARAM_JSON.test(json));
}

/** `text` without any registered key (in any of its forms), bearer token, provider-shaped key or URL credential. */
export function redactSecrets(text: string, extra: readonly (string | null | undefined)[] = []): string {
  let out = text;
  if (registered.size > 0 || extra.length > 0) {
    const lists: string[][] = [...registered.values()];
    for (const s of extra) if (typeof s === "string" && s.length >= MIN_SECRET_LENGTH) lists.push(registered.get(s) ?? formsOf(s));
    for (const forms of lists) for (const f of forms) if (out.includes(f)) out = out.split(f).join("[redacted]");
  }
  if (!MAYBE_SECRET.test(out)) return out;
  return out
    .replace(/Bearer\s+[^\s"'\\,;]+/gi, "Bearer [redacted]")
    .replace(KEY_SHAPES, "[redacted key]")
    .replace(URL_USERINFO, "$1[redacted]@")
    .replace(KEY_PARAM, "$1[redacted]");
}

/** `out[key] = value` as an own field, even for the key `__proto__` (a plain assignment would set the prototype and lose the field). */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * `value` with every string in it redacted (object keys included), for records about to be written:
 * the log writers call it on every line and manifest, so no writer can forget. Returns `value`
 * itself when nothing changed (no copy of a clean record).
 */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redactSecrets(value) as T;
  // Copies only from the first changed element or field on: a clean record allocates nothing.
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const r = redactDeep(v);
      if (out === null && r !== v) out = value.slice(0, i);
      out?.push(r);
    }
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === "object") {
    let out: Record<string, unknown> | null = null;
    const src = value as Record<string, unknown>;
    const keys = Object.keys(src);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const v = src[k];
      const rk = redactKey(k);
      const rv = redactDeep(v);
      if (out === null && (rk !== k || rv !== v)) {
        out = {};
        for (let j = 0; j < i; j++) put(out, keys[j]!, src[keys[j]!]);
      }
      if (out !== null) put(out, rk, rv);
    }
    return (out ?? value) as T;
  }
  return value;
}
