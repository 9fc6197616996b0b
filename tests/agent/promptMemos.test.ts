/**
 * The memos of a prompt's reads (stepPrompt.ts messagesToPolicyContext) and of its token count
 * (tokenCounter.ts messages) keep one answer per message object, checked against its content: a
 * prompt that shares message objects with earlier ones (the runner's, step after step) must be read
 * and counted as fresh copies of the same messages, which share nothing, whatever the sharing (a turn
 * appended, turns dropped, a message replaced, a message's content changed in place, roles out of order).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildStepMessages, messagesToPolicyContext, type EarlierTurn } from "../../src/agent/stepPrompt.js";
import { CONTRACT_REMINDER } from "../../src/games/responseContract.js";
import { TokenCounter } from "../../src/models/tokenCounter.js";
import { countMessageTokens } from "../../src/models/tokens.js";
import type { ChatMessage } from "../../src/models/types.js";

const fresh = (ms: readonly ChatMessage[]): ChatMessage[] => ms.map((m) => ({ role: m.role, content: m.content }));

const turnArb = fc.record({
  observation: fc.constantFrom("Step 1\nboard A", "Step 2\nboard B", "", "<observation>\nx\n</observation>"),
  response: fc.constantFrom("Answer: UP\nScore: 1", "", "no answer", "Answer: LEFT\nScore: 0"),
  feedback: fc.constantFrom("ok", "", "(none)", "invalid"),
  reward: fc.constantFrom(0, 1),
  scoreAfter: fc.constantFrom(0, 1, 2),
});

/** Edits that keep some message objects and change others. */
const editArb = fc.oneof(
  fc.record({ kind: fc.constant("drop" as const), at: fc.nat(12) }),
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(12), content: fc.constantFrom("Answer: DOWN\nScore: 1", "<observation>\nnew\n</observation>", "plain") }),
  fc.record({ kind: fc.constant("role" as const), at: fc.nat(12), role: fc.constantFrom("system" as const, "user" as const, "assistant" as const) }),
  fc.record({ kind: fc.constant("mutate" as const), at: fc.nat(12), content: fc.constantFrom("Answer: RIGHT\nScore: 0", "<observation>\nm\n</observation>") }),
);

describe("prompt memos by message object", () => {
  it("read and count a prompt as they read and count fresh copies of it, step after step and after edits", () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 9 }), fc.array(editArb, { maxLength: 4 }), fc.constantFrom("", "EXP"), (turnList, edits, experience) => {
        const counter = new TokenCounter("o200k");
        const turns: EarlierTurn[] = [];
        let last: ChatMessage[] = [];
        const check = (p: ChatMessage[]) => {
          expect(messagesToPolicyContext(p)).toEqual(messagesToPolicyContext(fresh(p)));
          expect(counter.messages(p)).toBe(countMessageTokens(p, "o200k"));
        };
        for (const t of turnList) {
          last = buildStepMessages({ rules: "RULES", experience, turns, observation: t.observation, rewardVisibility: "hidden" });
          check(last);
          turns.push(Object.freeze({ ...t }));
        }
        // Edited prompts keep the first user message object (the memo's key) and most others.
        for (const e of edits) {
          let ms: ChatMessage[] = last.slice();
          const at = Math.min(e.at, ms.length - 1);
          if (e.kind === "drop" && at > 1) ms.splice(at, 1);
          if (e.kind === "replace" && at > 1) ms[at] = { role: ms[at]!.role, content: e.content };
          if (e.kind === "role" && at > 1) ms[at] = { role: e.role, content: ms[at]!.content };
          if (e.kind === "mutate" && at > 1) {
            // A mutable message changed in place after it was read (frozen ones cannot be).
            const m = { role: ms[at]!.role, content: ms[at]!.content };
            ms[at] = m;
            check(ms);
            ms = ms.slice();
            m.content = e.content;
          }
          check(ms);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a prompt built on a turns array it was built on before equals one built on a copy, after turns are appended, replaced in place or the inputs change", () => {
    fc.assert(
      fc.property(
        fc.array(turnArb, { minLength: 4, maxLength: 12 }),
        fc.array(fc.record({ at: fc.nat(11), turn: turnArb, frozen: fc.boolean(), experience: fc.constantFrom("", "EXP", "EXP2") }), { maxLength: 4 }),
        (turnList, edits) => {
          const turns: EarlierTurn[] = [];
          let experience = "EXP";
          const check = (observation: string) => {
            const input = { rules: "RULES", experience, turns, observation, rewardVisibility: "hidden" as const };
            const got = buildStepMessages(input);
            expect(fresh(got)).toEqual(fresh(buildStepMessages({ ...input, turns: turns.map((t) => ({ ...t })) })));
          };
          for (const t of turnList) {
            check(t.observation);
            turns.push(Object.freeze({ ...t }));
          }
          for (const e of edits) {
            // A turn replaced in place (frozen or not), and another experience.
            turns[Math.min(e.at, turns.length - 1)] = e.frozen ? Object.freeze({ ...e.turn }) : { ...e.turn };
            experience = e.experience;
            check("now");
            turns.push(Object.freeze({ ...e.turn }));
            check("next");
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("an episode's first user message is one object at its first two steps, and always its own text", () => {
    const first = (experience: string, observation: string) => `<experience>\n${experience}\n</experience>\n\n<observation>\n${observation}\n</observation>\n\n${CONTRACT_REMINDER}`;
    const turn: EarlierTurn = { observation: "obs 0", response: "Answer: UP\nScore: 1", feedback: "ok" };
    const experience = "Episode 1\n" + "row |..#|\n".repeat(500);
    const step0 = buildStepMessages({ rules: "R", experience, turns: [], observation: "obs 0", rewardVisibility: "hidden" });
    // Other episodes' first messages in between (another experience of the same length, other observations).
    const other = "Episode 2\n" + "row |.#.|\n".repeat(500);
    for (let i = 0; i < 20; i++) {
      const m = buildStepMessages({ rules: "R", experience: i % 2 === 0 ? other : experience, turns: [], observation: `obs ${i % 3}`, rewardVisibility: "hidden" })[1]!;
      expect(m.content).toBe(first(i % 2 === 0 ? other : experience, `obs ${i % 3}`));
    }
    const step1 = buildStepMessages({ rules: "R", experience, turns: [turn], observation: "obs 1", rewardVisibility: "hidden" });
    expect(step0[1]!.content).toBe(first(experience, "obs 0"));
    expect(step1[1]!.content).toBe(first(experience, "obs 0"));
    const again = buildStepMessages({ rules: "R", experience, turns: [], observation: "obs 0", rewardVisibility: "hidden" });
    expect(again[1]).toBe(step1[1]);
    // A changed experience is a new message with the new text.
    const step2 = buildStepMessages({ rules: "R", experience: other, turns: [turn], observation: "obs 1", rewardVisibility: "hidden" });
    expect(step2[1]!.content).toBe(first(other, "obs 0"));
  });
});
