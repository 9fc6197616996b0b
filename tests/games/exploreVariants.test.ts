/**
 * Every game lists at least two named explore variants (verified.md): valid configs of its schema,
 * named apart from explore/eval, different from explore, each with a rules text that states the
 * difference; and the explore/eval configs themselves stay what the KORGym fixtures pin.
 */
import { describe, expect, it } from "vitest";
import { GAMES } from "../../src/games/registry.js";
import { GAME_NAMES } from "../../src/games/types.js";

describe.each(GAME_NAMES)("%s explore variants", (name) => {
  const game = GAMES[name];
  const variants = Object.entries(game.exploreVariants);

  it("are at least two, named apart from explore and eval, valid and distinct from explore", () => {
    expect(variants.length).toBeGreaterThanOrEqual(2);
    for (const [v, config] of variants) {
      expect(v).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(["explore", "eval"]).not.toContain(v);
      expect(game.configSchema.safeParse(config).success, v).toBe(true);
      expect(JSON.stringify(config), v).not.toBe(JSON.stringify(game.configs.explore));
      expect(JSON.stringify(config), v).not.toBe(JSON.stringify(game.configs.eval));
    }
  });

  it("each states itself: its rules text (title aside) differs from explore's, and it plays under its own name", () => {
    const body = (text: string) => text.split("\n").slice(1).join("\n");
    const explore = body(game.rules("explore"));
    for (const [v, config] of variants) {
      const rules = game.rules(config, v);
      expect(rules.split("\n")[0]).toBe(`# S3Gym game: ${name} (config: ${v})`);
      expect(body(rules), v).not.toBe(explore);
      const state = game.reset(7, config, v);
      expect(state.configName).toBe(v);
      expect(game.observe(state).length).toBeGreaterThan(0);
    }
  });
});
