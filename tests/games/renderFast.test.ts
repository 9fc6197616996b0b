/**
 * The observation renderers build their text straight from the state, for speed (issue 28); each must
 * give the same bytes as its plain version, renderFacts(facts(state)), on every state of random and
 * heuristic play on every config. (The KORGym fixtures and the golden logs check the bytes too.)
 */
import { describe, expect, it } from "vitest";
import { GAMES } from "../../src/games/registry.js";
import * as minesweeper from "../../src/games/minesweeper/render.js";
import * as pvz from "../../src/games/pvz/render.js";
import * as snake from "../../src/games/snake/render.js";
import * as tetris from "../../src/games/tetris/render.js";
import * as trust from "../../src/games/trust/render.js";
import type { GameName } from "../../src/games/types.js";
import { Rng } from "../../src/util/rng.js";
import { allConfigs } from "./reference/differential.js";

const PLAIN: Partial<Record<GameName, (inner: any, config: any) => string>> = {
  minesweeper: (i, c) => minesweeper.renderFacts(minesweeper.facts(i, c)),
  pvz: (i, c) => pvz.renderFacts(pvz.facts(i, c), c.showZombieHp),
  snake: (i, c) => snake.renderFacts(snake.facts(i, c)),
  tetris: (i, c) => tetris.renderFacts(tetris.facts(i, c)),
  trust: (i, c) => trust.renderFacts(trust.facts(i, c)),
};
const FAST: Partial<Record<GameName, (inner: any, config: any) => string>> = {
  minesweeper: minesweeper.render,
  pvz: pvz.render,
  snake: snake.render,
  tetris: tetris.render,
  trust: trust.render,
};

describe("fast renderers give the plain renderers' bytes", () => {
  for (const name of Object.keys(PLAIN) as GameName[]) {
    it(name, () => {
      const game = GAMES[name];
      let states = 0;
      for (const { name: cname, config } of allConfigs(game)) {
        for (let seed = 0; seed < 6; seed++) {
          const rng = Rng.fromKey(`render-fast|${name}|${cname}|${seed}`);
          let s = game.reset(seed, config, cname);
          const rules = game.rules(config, cname);
          for (;;) {
            expect(FAST[name]!(s.inner, s.config)).toBe(PLAIN[name]!(s.inner, s.config));
            states++;
            if (s.done) break;
            const legal = game.legalActions(s);
            const action = seed % 2 === 0 || legal.length === 0 ? game.policies.heuristic({ rules, observation: game.observe(s), history: [] }, rng).action : rng.pick(legal);
            s = game.step(s, action).state;
          }
        }
      }
      expect(states).toBeGreaterThan(50);
    }, 120_000);
  }
});
