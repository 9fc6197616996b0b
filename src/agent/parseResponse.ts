/**
 * Strict, total parsing of a model reply under the response contract (protocol.md, "One step").
 * Model output is data: it is matched with regular expressions only, never executed or evaluated.
 */

export interface ParsedResponse {
  /** The action text as written after `Answer:` (wrapping emphasis removed); null when absent. */
  action: string | null;
  /** The self-score; null when absent or not a plain finite number. */
  selfScore: number | null;
  /** Why the action or the score could not be parsed; null when both parsed. */
  error: string | null;
}

const LABEL = (name: string) => new RegExp(`^[\\s>*_#\`-]*${name}[*_\`]*\\s*:[*_\`]*\\s*(.*)$`, "i");
const ANSWER = LABEL("answer");
const SCORE = LABEL("score");
/** `Answer: <action>, Score: <n>` on one line; the LAST `, Score:` splits, so actions may hold commas. */
const ONE_LINE = /^[\s>*_#`-]*answer[*_`]*\s*:[*_`]*\s*(.*)[,;]\s*[*_`]*score[*_`]*\s*:[*_`]*\s*(.*)$/i;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** Removes wrapping markdown emphasis/code marks and surrounding whitespace. */
function unwrap(text: string): string {
  let s = text.trim();
  for (;;) {
    const m = /^(\*\*|__|\*|_|`)([\s\S]+)\1$/.exec(s);
    if (!m || !m[2]!.trim()) return s;
    s = m[2]!.trim();
  }
}

/** Trailing emphasis left over from `**Answer: x**`, e.g. `x**`. */
function stripDanglingMarks(text: string): string {
  return text.replace(/[*_`]+$/, "").replace(/^[*_`]+/, "").trim();
}

function parseScore(raw: string): number | null {
  const s = stripDanglingMarks(unwrap(raw)).replace(/\.$/, "");
  if (!NUMBER.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

function cleanAction(raw: string): string | null {
  const a = stripDanglingMarks(unwrap(raw));
  return a.length > 0 ? a : null;
}

/**
 * Splits a reply at its last `</think>`: `reasoning` is everything up to and including it ("" when
 * there is none), `visible` what follows, the only part parseResponse reads (the viewer shows the
 * reasoning collapsed and the visible part as the answer).
 */
export function splitReasoning(text: string): { reasoning: string; visible: string } {
  let after = 0;
  for (const m of text.matchAll(/<\/think>/gi)) after = m.index + m[0].length;
  return { reasoning: text.slice(0, after), visible: text.slice(after) };
}

/**
 * Parses the last non-empty lines of `text`: `Answer: <action>` then `Score: <number>`, or the single
 * line `Answer: <action>, Score: <number>`. Reasoning served inside the content as `<think>...</think>`
 * is ignored. An action without a parsable score keeps the action (self-score null).
 */
export function parseResponse(text: string): ParsedResponse {
  // Only what follows the last `</think>` counts, so an action is always a substring of the reply.
  const { visible } = splitReasoning(text);
  const lines = visible.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  const last = lines.at(-1);
  const prev = lines.at(-2);
  if (last === undefined) return { action: null, selfScore: null, error: "empty response" };

  const scoreLine = SCORE.exec(last);
  if (scoreLine && prev !== undefined) {
    const answerLine = ANSWER.exec(prev);
    if (answerLine) {
      const action = cleanAction(answerLine[1]!);
      const selfScore = parseScore(scoreLine[1]!);
      if (action === null) return { action: null, selfScore, error: "empty action after 'Answer:'" };
      return { action, selfScore, error: selfScore === null ? `unparsable score '${scoreLine[1]!.slice(0, 40)}'` : null };
    }
  }

  const one = ONE_LINE.exec(last);
  if (one) {
    const action = cleanAction(one[1]!);
    const selfScore = parseScore(one[2]!);
    if (action === null) return { action: null, selfScore, error: "empty action after 'Answer:'" };
    return { action, selfScore, error: selfScore === null ? `unparsable score '${one[2]!.slice(0, 40)}'` : null };
  }

  const answerOnly = ANSWER.exec(last);
  if (answerOnly) {
    const action = cleanAction(answerOnly[1]!);
    if (action === null) return { action: null, selfScore: null, error: "empty action after 'Answer:'" };
    return { action, selfScore: null, error: "missing 'Score:' line after the answer" };
  }

  if (scoreLine) return { action: null, selfScore: null, error: "'Score:' line without an 'Answer:' line just before it" };
  return { action: null, selfScore: null, error: "the response does not end with 'Answer: <action>' and 'Score: <number>' lines" };
}
