import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildStepMessages, type EarlierTurn } from "../../src/agent/stepPrompt.js";
import { renderTrajectory, trajectoryPieces, type Trajectory } from "../../src/agent/trajectoryText.js";
import { countMessageTokens, countTokens, type TokenizerName } from "../../src/models/tokens.js";
import { experienceBudget, fitHistory, historyContext, historyCost, makeHistoryBlock, renderHistory, type HistoryBlock } from "../../src/pathways/history.js";
import { TokenCounter } from "../../src/models/tokenCounter.js";

function traj(episode: number, steps: number): Trajectory {
  return {
    episode,
    steps: Array.from({ length: steps }, (_, i) => ({
      observation: `Step ${i + 1} of 64\nboard of episode ${episode}, row ${"x".repeat(20 + ((i * 7) % 13))}`,
      action: i % 3 === 0 ? null : `move ${i}`,
      selfScore: i % 2 ? 1 : null,
      feedback: i % 4 ? "ok" : "",
    })),
    endObservation: `final board ${episode}`,
  };
}

const counter = new TokenCounter("o200k");
const blocks = [traj(1, 6), traj(2, 5), traj(3, 7)].map((t) => makeHistoryBlock(t, counter));
const full = blocks.map((b) => b.stepTokens.length);

describe("history cost", () => {
  it("is an upper bound of the exact token count, within 2%", () => {
    for (const keep of [full, [3, 5, 7], [0, 2, 7], [0, 0, 1]]) {
      const text = renderHistory(blocks, keep);
      const exact = countTokens(text);
      const additive = historyCost(blocks, keep, counter);
      expect(additive).toBeGreaterThanOrEqual(exact);
      expect(additive).toBeLessThanOrEqual(exact * 1.02 + 2);
    }
  });
});

describe("TokenCounter.messages", () => {
  it("equals countMessageTokens, and counts a message object again when its content changed", () => {
    const c = new TokenCounter("o200k");
    const m = [
      { role: "system" as const, content: "rules of the game" },
      { role: "user" as const, content: "<observation>\nboard\n</observation>" },
    ];
    expect(c.messages(m)).toBe(countMessageTokens(m));
    m[1]!.content = "<observation>\na much longer board with many more words in it\n</observation>";
    expect(c.messages(m)).toBe(countMessageTokens(m));
  });
});

describe("fitHistory: earlier episodes' tails go first", () => {
  it("keeps everything when it fits", () => {
    expect(fitHistory(blocks, historyCost(blocks, full, counter), counter)).toEqual(full);
  });
  it("cuts episode 1's tail step by step, then drops it, then cuts episode 2, and the newest block last", () => {
    const seen: number[][] = [];
    for (let budget = historyCost(blocks, full, counter); budget >= 0; budget--) {
      const keep = fitHistory(blocks, budget, counter);
      expect(historyCost(blocks, keep, counter)).toBeLessThanOrEqual(budget);
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(keep)) seen.push(keep);
    }
    // Every state is a point of the fixed cutting order: blocks before the cut are gone, after it whole.
    for (const keep of seen) {
      const cut = keep.map((k, i) => k < full[i]!).lastIndexOf(true);
      if (cut < 0) continue;
      for (let i = 0; i < cut; i++) expect(keep[i]).toBe(0);
      for (let i = cut + 1; i < keep.length; i++) expect(keep[i]).toBe(full[i]);
    }
    // And the order is monotone: the total kept never grows as the budget shrinks.
    const kept = seen.map((k) => k.reduce((a, b) => a + b, 0));
    for (let i = 1; i < kept.length; i++) expect(kept[i]!).toBeLessThan(kept[i - 1]!);
    expect(seen.at(-1)).toEqual([0, 0, 0]);
    expect(seen).toContainEqual([5, 5, 7]);
    expect(seen).toContainEqual([0, 4, 7]);
    expect(seen).toContainEqual([0, 0, 6]);
  });
  it("a cut block says what it omitted and loses its end state; a dropped block leaves no trace", () => {
    const text = renderHistory(blocks, [0, 2, 7]);
    expect(text).not.toContain("Exploration episode 1 ");
    expect(text).toContain("[... 3 later steps omitted]");
    expect(text).not.toContain("final board 2");
    expect(text).toContain("final board 3");
    expect(text.split("\n\n=== Exploration episode")).toHaveLength(2);
    expect(renderHistory(blocks, [6, 5, 7])).toBe(blocks.map((b) => renderTrajectory(b.trajectory)).join("\n\n"));
  });
});

describe("historyContext: budget per step", () => {
  const rules = "# S3Gym game: snake (config: explore)\nRULES ".repeat(5);
  const step = (n: number) => ({
    rules,
    turns: Array.from({ length: n }, (_, i) => ({ observation: `obs ${i} ${"y".repeat(50)}`, response: `thinking\nAnswer: up\nScore: ${i}`, feedback: "moved" })),
    observation: "current",
    rewardVisibility: "hidden" as const,
  });
  it("the whole prompt fits context-tokens minus the reply reserve, and the budget shrinks as the episode grows", () => {
    const settings = { contextTokens: 1500, maxNewTokens: 200, tokenizer: "o200k" as const };
    let previousKept = Infinity;
    for (const n of [0, 3, 6, 9]) {
      const s = step(n);
      const c = historyContext(blocks, settings, s, counter);
      const messages = buildStepMessages({ ...s, experience: c.text });
      expect(countMessageTokens(messages)).toBeLessThanOrEqual(settings.contextTokens - settings.maxNewTokens);
      const kept = c.keep.reduce((a, b) => a + b, 0);
      expect(kept).toBeLessThanOrEqual(previousKept);
      previousKept = kept;
    }
    expect(previousKept).toBeLessThan(18);
  });
  it("gives an empty experience when nothing fits", () => {
    const c = historyContext(blocks, { contextTokens: 300, maxNewTokens: 200, tokenizer: "o200k" }, step(0), counter);
    expect(c).toEqual({ text: "", keep: [0, 0, 0] });
  });
  it("memoised message counts equal countMessageTokens", () => {
    const m = buildStepMessages({ ...step(4), experience: "E" });
    expect(counter.messages(m)).toBe(countMessageTokens(m));
  });
});

/**
 * A straightforward reference of History ICL context assembly, straight from docs/runner.md: render
 * every block afresh, build the whole bare message array and count it, and walk the cutting order
 * state by state with costs computed from scratch. The optimised path (cached block texts, per-turn
 * token counts, skipped blocks) must give the same bytes and the same keep vectors.
 */
const refCounts = new Map<string, number>();
function refCount(t: string, tok: TokenizerName): number {
  const key = `${tok}\u0000${t}`;
  let n = refCounts.get(key);
  if (n === undefined) refCounts.set(key, (n = countTokens(t, tok)));
  return n;
}

const reference = {
  render(blocks: readonly HistoryBlock[], keep: readonly (number | undefined)[]): string {
    return blocks
      .map((b, i) => renderTrajectory(b.trajectory, keep[i]))
      .filter((t) => t.length > 0)
      .join("\n\n");
  },
  cost(blocks: readonly HistoryBlock[], keep: readonly number[], tok: TokenizerName): number {
    let total = 0;
    let kept = 0;
    blocks.forEach((b, i) => {
      const p = trajectoryPieces(b.trajectory);
      const n = p.steps.length;
      const k = Math.min(keep[i]!, n);
      if (k <= 0 || n === 0) return;
      const tail = k === n ? p.end : `[... ${n - k} later steps omitted]`;
      const pieces = [p.header, ...p.steps.slice(0, k), tail, p.footer];
      total += pieces.reduce((a, t) => a + refCount(t, tok), 0) + (pieces.length - 1) * refCount("\n", tok);
      kept += 1;
    });
    return total + Math.max(0, kept - 1) * refCount("\n\n", tok);
  },
  budget(contextTokens: number, maxNewTokens: number, step: StepInput, tok: TokenizerName): number {
    const bare = buildStepMessages({ ...step, experience: "" });
    const wrapper = countTokens("<experience>\n", tok) + countTokens("\n</experience>", tok) + countTokens("\n\n", tok);
    return contextTokens - maxNewTokens - countMessageTokens(bare, tok) - wrapper;
  },
  fit(blocks: readonly HistoryBlock[], budget: number, tok: TokenizerName): number[] {
    const keep = blocks.map((b) => b.trajectory.steps.length);
    if (reference.cost(blocks, keep, tok) <= budget) return keep;
    for (let b = 0; b < blocks.length; b++) {
      for (let k = keep[b]! - 1; k >= 0; k--) {
        keep[b] = k;
        if (reference.cost(blocks, keep, tok) <= budget) return keep;
      }
    }
    return keep;
  },
  context(blocks: readonly HistoryBlock[], contextTokens: number, maxNewTokens: number, step: StepInput, tok: TokenizerName) {
    if (blocks.length === 0) return { text: "", keep: [] as number[] };
    const keep = reference.fit(blocks, reference.budget(contextTokens, maxNewTokens, step, tok), tok);
    return { text: reference.render(blocks, keep), keep };
  },
};

interface StepInput {
  rules: string;
  turns: EarlierTurn[];
  observation: string;
  rewardVisibility: "hidden" | "visible";
}

// Short texts with newlines, digits, markup and non-ASCII, so token counts and BPE merges vary.
const text = fc.array(fc.constantFrom("a", "b", "x", " ", "\n", "7", "<", ">", "==", "é", "步", "#", "...", "こんにちは世界"), { maxLength: 24 }).map((a) => a.join(""));
const trajStep = fc.record({
  observation: text,
  action: fc.option(text, { nil: null }),
  selfScore: fc.option(fc.integer({ min: -3, max: 10 }), { nil: null }),
  feedback: text,
});
const trajectories = fc.array(fc.record({ steps: fc.array(trajStep, { maxLength: 7 }), endObservation: text }), { maxLength: 5 }).map((ts) => ts.map((t, i): Trajectory => ({ episode: i + 1, ...t })));
const turn = fc.record({
  observation: text,
  response: text,
  feedback: text,
  reward: fc.integer({ min: -2, max: 5 }),
  scoreAfter: fc.integer({ min: -10, max: 40 }),
});

describe("optimised history context equals a straightforward reference", () => {
  it("renderHistory: any keep vector (dropped, cut, whole, beyond n, missing entries), any block set", () => {
    const keepEntry = fc.oneof(fc.integer({ min: -2, max: 9 }), fc.constant(undefined));
    fc.assert(
      fc.property(trajectories, fc.array(keepEntry, { maxLength: 6 }), (ts, keep) => {
        const c = new TokenCounter("o200k");
        const bs = ts.map((t) => makeHistoryBlock(t, c));
        // Twice on the same array: the second call reads the cached whole-block texts and suffixes.
        expect(renderHistory(bs, keep as number[])).toBe(reference.render(bs, keep));
        expect(renderHistory(bs, keep as number[])).toBe(reference.render(bs, keep));
        // The same array edited in place (as a caller may) is not served from stale cached text.
        const edited = bs.slice();
        const whole: number[] = [];
        for (const edit of [() => edited.reverse(), () => edited.push(bs[0]!), () => edited.splice(0, 1)]) {
          expect(renderHistory(edited, whole)).toBe(reference.render(edited, whole));
          if (edited.length > 0) edit();
        }
        // Blocks built without makeHistoryBlock's pieces render the same.
        const bare = bs.map((b) => ({ ...b }));
        expect(renderHistory(bare, keep as number[])).toBe(reference.render(bs, keep));
      }),
      { numRuns: 150 },
    );
  });

  it("fitHistory: the first fitting state of the cutting order, at every state's cost and one below it", () => {
    fc.assert(
      fc.property(trajectories, fc.constantFrom<TokenizerName>("o200k", "cl100k"), (ts, tok) => {
        const c = new TokenCounter(tok);
        const bs = ts.map((t) => makeHistoryBlock(t, c));
        const full = bs.map((b) => b.trajectory.steps.length);
        expect(historyCost(bs, full, c)).toBe(reference.cost(bs, full, tok));
        // Every state of the cutting order; the fit changes only at their costs.
        const states = [full.slice()];
        const walk = full.slice();
        for (let b = 0; b < bs.length; b++) {
          for (let k = walk[b]! - 1; k >= 0; k--) {
            walk[b] = k;
            states.push(walk.slice());
          }
        }
        const budgets = new Set<number>([-1, 0]);
        for (const st of states) {
          const cost = reference.cost(bs, st, tok);
          budgets
            .add(cost)
            .add(cost - 1)
            .add(cost + 1);
        }
        for (const budget of budgets) {
          const keep = fitHistory(bs, budget, c);
          expect(keep).toEqual(reference.fit(bs, budget, tok));
          expect(historyCost(bs, keep, c)).toBe(reference.cost(bs, keep, tok));
          // Truncation edges: a block cut to zero is absent from the text, blocks before the cut are
          // dropped (earlier episodes lose their tails first), blocks after it are whole.
          const text = renderHistory(bs, keep);
          const cut = keep.map((k, i) => k < full[i]!).lastIndexOf(true);
          keep.forEach((k, i) => {
            const header = `=== Exploration episode ${i + 1} (`;
            expect(text.includes(header)).toBe(k > 0);
            if (cut >= 0 && i < cut) expect(k).toBe(0);
            if (cut >= 0 && i > cut) expect(k).toBe(full[i]);
          });
        }
      }),
      { numRuns: 60 },
    );
  });

  it("historyContext over a growing episode (incremental turn counts, one frozen block array) and random budgets", () => {
    fc.assert(
      fc.property(
        trajectories,
        fc.array(turn, { maxLength: 8 }),
        text,
        fc.constantFrom<"hidden" | "visible">("hidden", "visible"),
        fc.constantFrom<TokenizerName>("o200k", "cl100k"),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 30 }),
        fc.boolean(),
        (ts, episode, rules, rewardVisibility, tok, slack, maxNewTokens, frozen) => {
          const c = new TokenCounter(tok);
          const bs = ts.map((t) => makeHistoryBlock(t, c));
          // A context window around the point where cutting starts, so fits, cuts and drops all occur.
          const contextTokens =
            40 +
            slack +
            Math.floor(
              reference.cost(
                bs,
                bs.map((b) => b.trajectory.steps.length),
                tok,
              ) / 2,
            );
          const settings = { contextTokens, maxNewTokens, tokenizer: tok };
          const turns: EarlierTurn[] = [];
          for (let i = 0; i <= episode.length; i++) {
            const step = { rules, turns, observation: episode[i]?.observation ?? "end", rewardVisibility };
            expect(experienceBudget(settings, step, c)).toBe(reference.budget(contextTokens, maxNewTokens, step, tok));
            const ctx = historyContext(bs, settings, step, c);
            expect(ctx).toEqual(reference.context(bs, contextTokens, maxNewTokens, step, tok));
            // The prompt's count, its first message counted from the experience's parts, is the tokenizer's own.
            const prompt = buildStepMessages({ ...step, experience: ctx.text });
            expect(c.messages(prompt)).toBe(countMessageTokens(prompt, tok));
            // Frozen turns are the runner's (earlierTurnOf): counts summed per array are kept for them.
            if (i < episode.length) turns.push(frozen ? Object.freeze({ ...episode[i]! }) : { ...episode[i]! });
          }
          // Turns edited in place (a frozen one: replaced in the array), reused in another array, or reordered are recounted, not trusted.
          if (turns.length > 0) {
            const last = turns.length - 1;
            if (frozen) {
              turns[0] = Object.freeze({ ...turns[0]!, feedback: `${turns[0]!.feedback}!` });
              turns[last] = Object.freeze({ ...turns[last]!, response: "changed" });
            } else {
              turns[0]!.feedback += "!";
              turns[last]!.response = "changed";
            }
            const flipped = rewardVisibility === "hidden" ? ("visible" as const) : ("hidden" as const);
            // Nor are counts reused across reward visibilities or counters (another tokenizer's).
            const other: TokenizerName = tok === "o200k" ? "cl100k" : "o200k";
            const otherCounter = new TokenCounter(other);
            const steps: [StepInput, TokenCounter, TokenizerName][] = [
              [{ rules, turns, observation: "x", rewardVisibility }, c, tok],
              [{ rules, turns, observation: "x", rewardVisibility: flipped }, c, tok],
              [{ rules, turns, observation: "x", rewardVisibility }, c, tok],
              [{ rules, turns, observation: "x", rewardVisibility }, otherCounter, other],
              [{ rules, turns, observation: "x", rewardVisibility }, c, tok],
              [{ rules, turns: [...turns].reverse(), observation: "x", rewardVisibility }, c, tok],
              [{ rules, turns: [turns[0]!, ...turns], observation: "x", rewardVisibility }, c, tok],
            ];
            for (const [step, counterUsed, tokUsed] of steps) {
              expect(experienceBudget(settings, step, counterUsed)).toBe(reference.budget(contextTokens, maxNewTokens, step, tokUsed));
            }
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it("the budget edges: everything fits exactly, one token short, and nothing fits", () => {
    const step = { rules: "R", turns: [] as EarlierTurn[], observation: "o", rewardVisibility: "hidden" as const };
    const bare = reference.budget(0, 0, step, "o200k"); // minus the fixed part
    const top = reference.cost(blocks, full, "o200k");
    for (const contextTokens of [top - bare, top - bare - 1, -bare, -bare - 1, 0]) {
      const settings = { contextTokens, maxNewTokens: 0, tokenizer: "o200k" as const };
      expect(historyContext(blocks, settings, step, counter)).toEqual(reference.context(blocks, contextTokens, 0, step, "o200k"));
    }
    expect(historyContext(blocks, { contextTokens: top - bare, maxNewTokens: 0, tokenizer: "o200k" }, step, counter).keep).toEqual(full);
    expect(historyContext(blocks, { contextTokens: top - bare - 1, maxNewTokens: 0, tokenizer: "o200k" }, step, counter).keep).toEqual([5, 5, 7]);
  });
});
