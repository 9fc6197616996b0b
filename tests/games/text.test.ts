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
