import { describe, expect, it } from "vitest";
import { GAMES } from "../../src/games/registry.js";
import { normalizeAction } from "../../src/games/text.js";
import { ADVERSARIAL_REPLIES, yieldToTimers } from "../helpers/adversarialText.js";

describe("normalizeAction", () => {
  it("strips wrapping marks, whitespace and one trailing period; collapses spaces; lower-cases", () => {
    expect(normalizeAction("  **UP**  ")).toBe("up");
    expect(normalizeAction("** `X 1 0` **")).toBe("x 1 0");
    expect(normalizeAction("__uncover  (1,\t2).__")).toBe("uncover (1, 2)");
    expect(normalizeAction("__x__.")).toBe("__x__");
    expect(normalizeAction("**x*")).toBe("*x");
    expect(normalizeAction("****")).toBe("****");
    expect(normalizeAction("* *")).toBe("* *");
    expect(normalizeAction("3 90..")).toBe("3 90.");
    expect(normalizeAction("\u00a0`cheat`\ufeff")).toBe("cheat");
  });

  // The fast path (text already normal is returned as is) must agree with the definition on every
  // text, not only on the legal actions it is there for: a plain regex version of the doc comment.
  const byDefinition = (raw: string): string => {
    let s = raw.trim();
    for (;;) {
      const m = ["**", "__", "*", "_", "`"].find((w) => s.length >= 2 * w.length && s.startsWith(w) && s.endsWith(w));
      const inner = m === undefined ? "" : s.slice(m.length, s.length - m.length).trim();
      if (inner === "") break;
      s = inner;
    }
    if (s.endsWith(".")) s = s.slice(0, -1);
    return s.trim().replace(/\s+/g, " ").toLowerCase();
  };

  it("agrees with its definition on short texts over an alphabet of every case it treats apart", () => {
    const alphabet = ["a", "Z", " ", "  ", "\t", ".", "*", "_", "`", "(", "1", ",", "\u00e9", "\u00a0", "\n"];
    let seed = 7;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let k = 0; k < 20_000; k++) {
      let raw = "";
      const len = next(7);
      for (let i = 0; i < len; i++) raw += alphabet[next(alphabet.length)];
      expect(normalizeAction(raw), JSON.stringify(raw)).toBe(byDefinition(raw));
    }
    for (const raw of ["collaborate", "x 1 0", "uncover (3, 4)", "a  b", "Cheat", "cheat.", " cheat", "*x*", "_x", "x_", "caf\u00e9"]) {
      expect(normalizeAction(raw), raw).toBe(byDefinition(raw));
    }
  });
});

describe("every game's action grammar is linear in the answer's length", () => {
  it("reads the adversarial replies (and the long runs inside them) without freezing, and never echoes them whole", async () => {
    for (const [name, text] of Object.entries(ADVERSARIAL_REPLIES)) {
      // Yield between replies, so the test timeout can fire (a synchronous loop would outlast it unnoticed).
      await yieldToTimers();
      expect(normalizeAction(text).length, name).toBeLessThanOrEqual(text.length);
      for (const game of Object.values(GAMES)) {
        await yieldToTimers();
        const r = game.step(game.reset(0, "explore"), text);
        expect(r.valid, `${game.name} ${name}`).toBe(false);
        expect(r.feedback.length, `${game.name} ${name}`).toBeLessThan(2000);
      }
    }
  });
});
