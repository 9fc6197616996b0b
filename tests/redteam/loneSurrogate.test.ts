/**
 * Red team, item 10 of issue 12: a reply holding a lone UTF-16 surrogate (a reply cut inside an
 * emoji) used to be logged as the escape `\ud83d`, which strict JSON readers (jq, serde, Go) refuse,
 * so one reply made steps.jsonl unreadable outside the kit. Every log and cache file is now valid
 * UTF-8 (a fatal decoder reads it) and holds no lone-surrogate escape; the surrogate is U+FFFD and
 * the rest of the text, a real emoji pair included, is kept.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { ResponseCache } from "../../src/models/cache/responseCache.js";
import type { Model } from "../../src/models/types.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { stringifyWellFormed, wellFormed } from "../../src/util/wellFormedJson.js";
import { factory, RewritingModel, small } from "../runner/helpers.js";

const HIGH = "\ud83d"; // the first half of 😀 (U+1F600 = \ud83d\ude00)
const LOW = "\ude00";

/** Every file under `dir`, recursively. */
function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile());
}

describe("lone surrogates at the writing edge", () => {
  it("replaces each lone half, keeps pairs and everything else", () => {
    expect(wellFormed(`a${HIGH}b`)).toBe("a\ufffdb");
    expect(wellFormed(`${LOW}x`)).toBe("\ufffdx");
    expect(wellFormed(`${HIGH}${LOW}`)).toBe("😀");
    expect(wellFormed(`${LOW}${HIGH}`)).toBe("\ufffd\ufffd");
    expect(wellFormed(`end${HIGH}`)).toBe("end\ufffd");
    expect(stringifyWellFormed({ k: `x${HIGH}`, [`key${LOW}`]: 1, ok: "😀" })).toBe('{"k":"x\ufffd","key\ufffd":1,"ok":"😀"}');
    // The text of a backslash-u escape is not a surrogate: it stays as written.
    expect(stringifyWellFormed({ t: "\\ud83d" })).toBe('{"t":"\\\\ud83d"}');
  });

  it("a run whose replies carry a lone surrogate writes files every strict reader accepts", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3surrogate-"));
    const entries = buildMatrix(["builtin:heuristic"], ["snake"], ["memory"], 0);
    const cut = (m: Model) => new RewritingModel(m, (text) => `${text}\nthinking ${HIGH} done 😀 ${LOW}`);
    const [o] = await runMatrix({ dataDir: data, entries, settings: small(), game: getGame, createModel: factory((_n, m) => cut(m)) });
    expect(o!.status).toBe("complete");
    const strict = new TextDecoder("utf-8", { fatal: true });
    let steps = 0;
    for (const file of allFiles(join(data, "runs"))) {
      const text = strict.decode(readFileSync(file)); // throws on invalid UTF-8
      expect(text, file).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
      const docs = file.endsWith(".jsonl") ? text.split("\n").filter((l) => l !== "") : [text];
      for (const d of docs) JSON.parse(d);
      if (file.endsWith("steps.jsonl")) {
        for (const d of docs) {
          const s = JSON.parse(d) as { response: string };
          expect(s.response).toContain("thinking \ufffd done 😀 \ufffd");
          steps++;
        }
      }
    }
    expect(steps).toBeGreaterThan(0);
  });

  it("the response cache stores such a reply as the logs do, and replays it", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3surrogate-cache-"));
    const cache = new ResponseCache(dir);
    const key = "ab".repeat(32);
    cache.put(key, { text: `Answer: UP${HIGH}`, reasoning: `why${LOW}`, finishReason: "stop", usage: { tokensIn: 1, tokensOut: 1, tokensCached: null }, latencyMs: 1, cached: false, retries: 0 });
    const strict = new TextDecoder("utf-8", { fatal: true });
    const [file] = allFiles(dir);
    const text = strict.decode(readFileSync(file!));
    expect(text).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    expect(cache.get(key)?.text).toBe("Answer: UP\ufffd");
  });
});
