/**
 * Red team, item 1 of issue 12: degenerate replies finish in linear time on every text path, and a
 * 5 MB reply goes through a whole History ICL and Summary Memory run. There is no timed assertion:
 * a quadratic path at these sizes runs for minutes, past the test timeout.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSummary } from "../../src/agent/summaryPrompt.js";
import { getGame } from "../../src/games/registry.js";
import { readRunRecords } from "../../src/logs/reader.js";
import type { Model } from "../../src/models/types.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, RewritingModel, small } from "../runner/helpers.js";
import { PATHS, SHAPES } from "./replyShapes.js";

describe("degenerate replies on every text path", () => {
  for (const [shape, make] of Object.entries(SHAPES)) {
    it(`${shape}: parse, count, history and memory paths finish at 1 MB`, () => {
      const reply = make(1_000_000);
      for (const run of Object.values(PATHS)) run(reply);
    });
  }

  it("a summary heading followed by a long run of spaces is not a heading (and does not backtrack)", () => {
    const r = parseSummary(`## Strategies to retain${" ".repeat(5000)}x\n## Mistakes to avoid\n- b\n## Directions for the next episode\n- c`);
    expect(r.ok).toBe(false);
    // A heading with trailing spaces and emphasis still is one.
    expect(parseSummary("## Strategies to retain   \n- a\n**Mistakes to avoid:**  \n- b\n## Directions for the next episode\n- c").ok).toBe(true);
  });
});

/** The model's answer for explore episode 1, step 0 (and its summary) replaced by `reply`. */
const hugeReply = (m: Model, reply: string): Model =>
  new RewritingModel(m, (text, r) => {
    const first = r.identity.phase === "explore" && r.identity.episode === 1 && (r.identity.purpose === "summary" || r.identity.step === 0);
    return first ? reply : text;
  });

describe("a 5 MB reply in a run", () => {
  const MB5 = 5_000_000;
  for (const pathway of ["history", "memory"]) {
    for (const shape of ["underscores", "huge-action", "heading-spaces"]) {
      it(`${pathway}: ${shape} is logged as the step's reply and the run completes`, async () => {
        const data = mkdtempSync(join(tmpdir(), "s3redteam-"));
        const reply = SHAPES[shape]!(MB5);
        const entries = buildMatrix(["builtin:heuristic"], ["snake"], [pathway], 0);
        const [o] = await runMatrix({ dataDir: data, entries, settings: small(), game: getGame, createModel: factory((_n, m) => hugeReply(m, reply)) });
        expect(o!.error).toBeNull();
        expect(o!.status).toBe("complete");
        const r = await readRunRecords(join(data, "runs", entries[0]!.runId));
        const step = r.steps.find((s) => s.phase === "explore" && s.episode === 1 && s.step === 0)!;
        expect(step.response.length).toBe(reply.length);
        if (pathway === "memory") expect(r.memory.find((m) => m.after_episode === 1)).toBeDefined();
      });
    }
  }
});
