import { describe, expect, it } from "vitest";
import { buildStepMessages, messagesToPolicyContext } from "../../src/agent/stepPrompt.js";
import { buildSummaryMessages, builtinSummary, isSummaryRequest, memoryText, parseSummary } from "../../src/agent/summaryPrompt.js";
import { renderTrajectory } from "../../src/agent/trajectoryText.js";

const turns = [
  { observation: "Step 1 of 64\nboard A\n\nwith a blank line", response: "thinking\nAnswer: UP\nScore: 1", feedback: "ate an apple", reward: 1, scoreAfter: 1 },
  { observation: "Step 2 of 64\nboard B", response: "", feedback: "invalid action: expected 'UP'", reward: 0, scoreAfter: 1 },
];

describe("step prompt", () => {
  it("alternates user/assistant after the system message and ends on the current observation", () => {
    const m = buildStepMessages({ rules: "RULES", experience: "EXP", turns, observation: "Step 3 of 64\nboard C", rewardVisibility: "hidden" });
    expect(m.map((x) => x.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(m[1]!.content.startsWith("<experience>\nEXP\n</experience>")).toBe(true);
    expect(m[4]!.content).toBe("(empty reply)");
    expect(m[5]!.content).toContain("<feedback>invalid action: expected 'UP'</feedback>");
    expect(m[5]!.content).toMatch(/board C\n<\/observation>\n\nReply with/);
  });
  it("never shows the verifier reward unless visibility is 'visible'", () => {
    const hidden = JSON.stringify(buildStepMessages({ rules: "R", experience: "", turns, observation: "o", rewardVisibility: "hidden" }));
    expect(hidden).not.toMatch(/reward/i);
    const visible = JSON.stringify(buildStepMessages({ rules: "R", experience: "", turns, observation: "o", rewardVisibility: "visible" }));
    expect(visible).toContain("verifier reward: 1");
  });
  it("earlier turns do not change when a step is appended (cacheable prefix)", () => {
    const a = buildStepMessages({ rules: "R", experience: "E", turns: turns.slice(0, 1), observation: turns[1]!.observation, rewardVisibility: "hidden" });
    const b = buildStepMessages({ rules: "R", experience: "E", turns, observation: "x", rewardVisibility: "hidden" });
    expect(b.slice(0, a.length)).toEqual(a);
  });
  it("inverts to the policy context a text policy needs", () => {
    const exp = "<observation>\nold episode\n</observation>";
    const m = buildStepMessages({ rules: "RULES", experience: exp, turns, observation: "Step 3 of 64\nboard C", rewardVisibility: "visible" });
    expect(messagesToPolicyContext(m)).toEqual({
      rules: "RULES",
      observation: "Step 3 of 64\nboard C",
      history: [
        { observation: turns[0]!.observation, action: "UP", feedback: "ate an apple" },
        { observation: turns[1]!.observation, action: null, feedback: "invalid action: expected 'UP'" },
      ],
    });
    expect(messagesToPolicyContext([{ role: "user", content: "hello" }])).toBeNull();
  });
  it("reuses an earlier turn's text only while everything it shows is unchanged", () => {
    // The same turn objects at every step (as the episode runner passes them); each input of a
    // turn's user message changed in place must show in the next build, as a fresh build shows it.
    const live = turns.map((t) => ({ ...t }));
    const input = (experience: string, visibility: "hidden" | "visible" = "hidden") => ({ rules: "R", experience, turns: live, observation: "now", rewardVisibility: visibility });
    const fresh = (experience: string, visibility: "hidden" | "visible" = "hidden") => buildStepMessages({ ...input(experience, visibility), turns: live.map((t) => ({ ...t })) });
    const first = buildStepMessages(input("E1"));
    expect(buildStepMessages(input("E1"))[3]!.content).toBe(first[3]!.content);
    live[0]!.feedback = "ate two apples";
    live[1]!.observation = "Step 2 of 64\nboard B2";
    expect(buildStepMessages(input("E1"))).toEqual(fresh("E1"));
    expect(buildStepMessages(input("E1"))[3]!.content).toContain("<feedback>ate two apples</feedback>\n\n<observation>\nStep 2 of 64\nboard B2");
    expect(buildStepMessages(input("E2"))).toEqual(fresh("E2"));
    expect(buildStepMessages(input("E2"))[1]!.content).toContain("E2");
    live[0]!.reward = 5;
    expect(buildStepMessages(input("E2", "visible"))).toEqual(fresh("E2", "visible"));
    expect(buildStepMessages(input("E2", "visible"))[3]!.content).toContain("verifier reward: 5");
    // The inverse reads the changed texts too (its memo is keyed by the text itself).
    expect(messagesToPolicyContext(buildStepMessages(input("E2")))!.history[0]!.feedback).toBe("ate two apples");
  });
  it("keeps one frozen message object per earlier turn, from the step where the turn was the current one", () => {
    const live = turns.map((t) => ({ ...t }));
    const step = (n: number, observation: string) => buildStepMessages({ rules: "R", experience: "E", turns: live.slice(0, n), observation, rewardVisibility: "hidden" });
    const s1 = step(1, live[1]!.observation); // turn 1's message is the current one here
    const s2 = step(2, "now");
    expect(s2[3]).toBe(s1[3]); // the same object, not an equal copy
    expect(s2[2]).toBe(step(2, "now")[2]); // an assistant message too
    expect(Object.isFrozen(s2[3])).toBe(true);
    expect(() => {
      (s2[3] as { content: string }).content = "changed";
    }).toThrow(TypeError);
    // A changed input makes a new object with the new text; the old object keeps its text.
    live[0]!.feedback = "ate two apples";
    const s3 = step(2, "now");
    expect(s3[3]).not.toBe(s2[3]);
    expect(s3[3]!.content).toContain("ate two apples");
    expect(s2[3]!.content).toContain("ate an apple");
  });
  it("reads a message object again when its content changed (messages from outside are not frozen)", () => {
    const m = buildStepMessages({ rules: "R", experience: "", turns, observation: "now", rewardVisibility: "hidden" }).map((x) => ({ ...x }));
    expect(messagesToPolicyContext(m)!.history[0]!.action).toBe("UP");
    m[2]!.content = "Answer: DOWN\nScore: 0";
    m[3]!.content = m[3]!.content.replace("ate an apple", "hit a wall");
    const read = messagesToPolicyContext(m)!;
    expect(read.history[0]!.action).toBe("DOWN");
    expect(read.history[0]!.feedback).toBe("hit a wall");
  });
});

describe("summary memory", () => {
  const trajectory = renderTrajectory({
    episode: 4,
    steps: [
      { observation: "o1", action: "UP", selfScore: 1, feedback: "ate an apple" },
      { observation: "o2", action: "LEFT", selfScore: 0, feedback: "blocked" },
    ],
    endObservation: "end",
  });
  it("parses exactly three ordered, non-empty sections", () => {
    const ok = parseSummary("## Strategies to retain\n- a\n\n**Mistakes to avoid:**\n- b\n### Directions for the next episode\n- c");
    expect(ok).toEqual({ ok: true, triple: { retain: "- a", avoid: "- b", next: "- c" } });
    expect(parseSummary("## Mistakes to avoid\n- b\n## Strategies to retain\n- a\n## Directions for the next episode\n- c").ok).toBe(false);
    expect(parseSummary("## Strategies to retain\n\n## Mistakes to avoid\n- b\n## Directions for the next episode\n- c").ok).toBe(false);
    expect(parseSummary("just some prose").ok).toBe(false);
  });
  it("the built-in summary is deterministic, parses, and reflects the trajectory", () => {
    const msgs = buildSummaryMessages({ rules: "R", previous: null, trajectory });
    expect(isSummaryRequest(msgs)).toBe(true);
    const text = builtinSummary(msgs);
    expect(builtinSummary(msgs)).toBe(text);
    const parsed = parseSummary(text);
    expect(parsed.ok).toBe(true);
    expect(text).toContain("'UP' was self-scored positive 1 time(s) in episode 4");
    expect(text).toContain("1 of 2 steps drew negative feedback (e.g. 'blocked')");
    if (parsed.ok) expect(memoryText(parsed.triple)).toContain("## Mistakes to avoid\n- 1 of 2");
  });
  it("trajectory blocks truncate from the tail and never carry rewards", () => {
    expect(trajectory).not.toMatch(/reward/i);
    const cut = renderTrajectory(
      {
        episode: 1,
        steps: [
          { observation: "a", action: "x", selfScore: null, feedback: "" },
          { observation: "b", action: null, selfScore: 2, feedback: "f" },
        ],
        endObservation: "E",
      },
      1,
    );
    expect(cut).toBe(
      "=== Exploration episode 1 (2 steps) ===\n--- Step 1 ---\nObservation:\na\nAction: x\nSelf-score: (none)\nFeedback: (none)\n[... 1 later steps omitted]\n=== End of exploration episode 1 ===",
    );
    expect(renderTrajectory({ episode: 1, steps: [], endObservation: "E" }, 0)).toBe("");
  });
});

describe("messagesToPolicyContext extends the previous step's read only when the prompt extends it", () => {
  const turn = (i: number) => ({ observation: `obs ${i}`, response: `Answer: a${i}\nScore: 0`, feedback: `fb ${i}` });
  const prompt = (rules: string, n: number) => buildStepMessages({ rules, experience: "", turns: Array.from({ length: n }, (_, i) => turn(i)), observation: `obs ${n}`, rewardVisibility: "hidden" });

  it("reads step after step as it reads each prompt alone, with entries shared and frozen", () => {
    const a = buildStepMessages({ rules: "R", experience: "", turns: [], observation: "obs 0", rewardVisibility: "hidden" });
    const first = messagesToPolicyContext(a)!;
    // The next prompt reuses the first prompt's message objects and adds a reply and a user turn.
    const b = [...a, { role: "assistant" as const, content: "Answer: a0\nScore: 0" }, { role: "user" as const, content: "<feedback>fb 0</feedback>\n\n<observation>\nobs 1\n</observation>" }];
    const second = messagesToPolicyContext(b)!;
    expect(first.history).toEqual([]);
    expect(second).toEqual({ rules: "R", observation: "obs 1", history: [{ observation: "obs 0", action: "a0", feedback: "fb 0" }] });
    expect(Object.isFrozen(second.history[0])).toBe(true);
    expect(second).toEqual(messagesToPolicyContext(b.map((m) => ({ ...m }))));
  });

  it("does not reuse a read whose earlier messages changed (rules or a turn's text)", () => {
    const p1 = prompt("RULES one", 1);
    messagesToPolicyContext(p1);
    const p2 = [...p1, { role: "assistant" as const, content: "Answer: z\nScore: 0" }, { role: "user" as const, content: "<feedback>f</feedback>\n\n<observation>\nnew\n</observation>" }];
    p2[0] = { role: "system", content: "RULES two" };
    expect(messagesToPolicyContext(p2)!.rules).toBe("RULES two");
    const p3 = [...p1, { role: "assistant" as const, content: "Answer: y\nScore: 0" }, { role: "user" as const, content: "<observation>\nnewer\n</observation>" }];
    p3[1] = { role: "user", content: "<observation>\nedited\n</observation>" };
    expect(messagesToPolicyContext(p3)!.history.map((h) => h.observation)).toEqual(["edited", "obs 1"]);
  });
});
