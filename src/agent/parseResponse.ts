/**
 * Total parsing of a model reply under the response contract (protocol.md, "One step").
 *
 * Two rules (the one in use is recorded in the run manifest as `parse_rule`):
 * - `last-answer` (default): reads what real models write, as KORGym's own harness does: the value of
 *   the LAST `Answer` label outside `<think>` blocks, whatever text follows it; the self-score is the
 *   last `Score` label after it. See docs/pitfalls.md for the shapes it accepts, with real examples.
 * - `strict-contract` (`--strict-contract`): the literal contract: the last two non-empty lines must be
 *   `Answer: <action>` and `Score: <number>` (or the one line `Answer: <action>, Score: <number>`).
 *
 * Model output is data: it is scanned, never executed or evaluated. Every scan here is linear in the
 * reply's length: regular expressions are either bounded literals scanned once left to right, or are
 * applied to a few characters; trimming is done by character loops (a pattern such as `[*_`]+$` is
 * quadratic on a long run of marks that does not reach the end, which a reply can contain).
 */

export const PARSE_RULES = ["last-answer", "strict-contract"] as const;
export type ParseRule = (typeof PARSE_RULES)[number];
/** The rule a run uses unless `--strict-contract` is given. */
export const DEFAULT_PARSE_RULE: ParseRule = "last-answer";

export interface ParsedResponse {
  /** The action text as written after the Answer label (wrapping marks removed); null when absent. */
  action: string | null;
  /** The self-score; null when absent or not a plain finite number. */
  selfScore: number | null;
  /** Why the action or the score could not be parsed, naming the rule; null when both parsed. */
  error: string | null;
}

/**
 * A label: the word (not preceded by a letter or digit: `Final Answer`, `;Answer`, `**Answer` count,
 * `reanswer` does not), then marks, quotes or whitespace (line breaks too, as KORGym allows), then a
 * colon. Linear under a global scan: a match can only start at the word, and the run after one
 * occurrence of the word (no letters in it) ends before the next occurrence begins.
 */
const labelPattern = (word: string) => new RegExp(`(?<![a-z0-9])${word}[\\s*_\`'"]*:`, "gi");
const ANSWER_LABEL = labelPattern("answer");
const SCORE_LABEL = labelPattern("score");
const THINK_CLOSE = /<\/think>/gi;
const THINK_OPEN = /<think>/i;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
/** A plain number is never longer than this; a longer score text is not tested against NUMBER. */
const MAX_SCORE_CHARS = 64;

/** Characters that wrap a value without being part of it: whitespace, markdown marks, quotes, `$`, separators. */
const isWrap = (ch: string): boolean => ch === "*" || ch === "_" || ch === "`" || ch === "'" || ch === '"' || ch === "$" || ch === ";" || ch === "," || ch <= " " || ch === "\u00a0";

const isSpace = (ch: string | undefined): boolean => ch !== undefined && (ch <= " " || ch === "\u00a0");
const isMark = (ch: string | undefined): boolean => ch === "*" || ch === "_" || ch === "`";

interface Span {
  /** Index of the label's first character. */
  start: number;
  /** Index just after the label's colon: where the value begins. */
  end: number;
}

/** Every match of a global label pattern in `text` from `from`; the last one, or null. Linear. */
function lastLabel(re: RegExp, text: string, from = 0): Span | null {
  re.lastIndex = from;
  let last: Span | null = null;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) last = { start: m.index, end: m.index + m[0].length };
  return last;
}

/** Characters that may precede a label at the start of its line: spaces, marks, quotes, bullets, headers. */
const isLinePrefix = (ch: string): boolean => isWrap(ch) || ch === "#" || ch === ">" || ch === "-";

/**
 * The self-score label: the last `Score` label after the answer that is on the answer's own line
 * (`Answer: x, Score: 1`) or begins a later line (`**Score:** 1`). A `Score` inside a later line is
 * prose or a board copied from the prompt (`Turn:10 | Sun: 85 | Score: 10`), not a self-score. The
 * backward check stops at the first other character, and the runs it walks are disjoint: linear.
 */
function lastScoreLabel(text: string, from: number, answerLineEnd: number): Span | null {
  SCORE_LABEL.lastIndex = from;
  let last: Span | null = null;
  for (let m = SCORE_LABEL.exec(text); m !== null; m = SCORE_LABEL.exec(text)) {
    let i = m.index;
    if (i >= answerLineEnd) while (i > 0 && text[i - 1] !== "\n" && isLinePrefix(text[i - 1]!)) i--;
    if (i < answerLineEnd || i === 0 || text[i - 1] === "\n") last = { start: m.index, end: m.index + m[0].length };
  }
  return last;
}

/** `[start, end)` trimmed of wrapping characters on both sides (and a trailing period); character loops only. */
function trimSpan(text: string, start: number, end: number): [number, number] {
  let a = start;
  let b = end;
  for (;;) {
    while (a < b && isWrap(text[a]!)) a++;
    while (b > a && (isWrap(text[b - 1]!) || text[b - 1] === ".")) b--;
    // `\boxed{x}` / `\text{x}` (LaTeX answers) unwrap to x. Only the next few characters are looked at.
    const latex = text[a] === "\\" && text[b - 1] === "}" ? /^\\(?:boxed|text|mathrm|mathbf)\{/.exec(text.slice(a, Math.min(b, a + 8))) : null;
    if (latex !== null && a + latex[0].length < b) {
      a += latex[0].length;
      b -= 1;
      continue;
    }
    return [a, b];
  }
}

function lineEnd(text: string, from: number): number {
  const i = text.indexOf("\n", from);
  return i < 0 ? text.length : i;
}

/** A code-fence line such as ```` ``` ```` or ```` ```json ````. Character loops only. */
function isFence(text: string, start: number, end: number): boolean {
  let i = start;
  while (i < end && isSpace(text[i])) i++;
  if (!text.startsWith("```", i)) return false;
  i += 3;
  while (i < end && (text[i] === "`" || text[i] === "-" || /\w/.test(text[i]!))) i++;
  while (i < end && isSpace(text[i])) i++;
  return i === end;
}

function parseScore(text: string, start: number, end: number): number | null {
  const [a, b] = trimSpan(text, start, end);
  if (b - a > MAX_SCORE_CHARS) return null;
  const s = text.slice(a, b);
  if (!NUMBER.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** The part of the reply outside `<think>` blocks: after the last `</think>`, up to an unclosed `<think>`. */
function visiblePart(text: string): string {
  return splitReasoning(text).visible;
}

/**
 * A reply split into what parsing reads (`visible`: after the last `</think>`, up to an unclosed
 * `<think>`) and the rest (`reasoning`: the think blocks before it, then an unclosed one after it,
 * "" when there is none). The viewer shows the reasoning collapsed and the visible part as the answer.
 */
export function splitReasoning(text: string): { reasoning: string; visible: string } {
  let after = 0;
  THINK_CLOSE.lastIndex = 0;
  for (let m = THINK_CLOSE.exec(text); m !== null; m = THINK_CLOSE.exec(text)) after = m.index + m[0].length;
  const rest = text.slice(after);
  const open = THINK_OPEN.exec(rest);
  const visible = open ? rest.slice(0, open.index) : rest;
  const tail = open ? rest.slice(open.index) : "";
  return { reasoning: [text.slice(0, after), tail].filter((t) => t.length > 0).join("\n"), visible };
}

const shorten = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}...` : s);

function lastAnswer(visible: string): ParsedResponse {
  const tag = " (rule last-answer)";
  const answer = lastLabel(ANSWER_LABEL, visible);
  if (answer === null) return { action: null, selfScore: null, error: `no 'Answer:' label outside <think> blocks${tag}` };
  const score = lastScoreLabel(visible, answer.end, lineEnd(visible, answer.end));

  // The value: the rest of the label's line, or (when that holds nothing) the next line with content,
  // code fences skipped. A Score label on that line ends the value (`Answer: x, Score: 1`).
  let a = answer.end;
  let b = lineEnd(visible, a);
  for (let first = true; ; first = false) {
    if (!first && isFence(visible, a, b)) {
      [a, b] = [b, b];
    }
    const cut = score !== null && score.start >= a && score.start < b ? score.start : b;
    const [ta, tb] = trimSpan(visible, a, cut);
    // Found a value; or a Score label comes first, or the reply ends: no value.
    if (ta < tb || cut < b || b >= visible.length) {
      [a, b] = [ta, tb];
      break;
    }
    a = b + 1;
    b = lineEnd(visible, a);
  }
  const action = a < b ? visible.slice(a, b) : null;
  if (action === null) {
    const selfScore = score === null ? null : parseScore(visible, score.end, lineEnd(visible, score.end));
    return { action: null, selfScore, error: `the last 'Answer:' label holds no action${tag}` };
  }
  if (score === null) return { action, selfScore: null, error: `no 'Score:' label after the answer${tag}` };
  const scoreEnd = lineEnd(visible, score.end);
  const selfScore = parseScore(visible, score.end, scoreEnd);
  if (selfScore === null) return { action, selfScore, error: `unparsable score '${shorten(visible.slice(score.end, scoreEnd).trim())}' after the answer${tag}` };
  return { action, selfScore, error: null };
}

// ---- strict-contract -------------------------------------------------------------------------------

/**
 * `line` starts (after spaces, `>`, `#`, `-` and marks) with the label `word` and a colon: the index
 * where the value begins, else -1. Character loops only.
 */
function lineLabel(line: string, word: string): number {
  let i = 0;
  while (i < line.length && (isSpace(line[i]) || isMark(line[i]) || line[i] === ">" || line[i] === "#" || line[i] === "-")) i++;
  if (line.slice(i, i + word.length).toLowerCase() !== word) return -1;
  i += word.length;
  while (i < line.length && (isSpace(line[i]) || isMark(line[i]))) i++;
  return line[i] === ":" ? i + 1 : -1;
}

/** `[start, end)` of the last non-empty line ending at or before `end`, or null. */
function lastLine(text: string, end: number): [number, number] | null {
  let b = end;
  while (b > 0) {
    const a = text.lastIndexOf("\n", b - 1) + 1;
    if (text.slice(a, b).trim().length > 0) return [a, b];
    b = a - 1;
  }
  return null;
}

/**
 * In the one-line form, the separator `, Score:` / `; Score:` (the last one on the line). Linear under a
 * global scan: a match starts only at `,` or `;`, and the runs after two separators are disjoint.
 */
const ONE_LINE_SCORE = /[,;][\s*_`]*score[*_`]*\s*:/gi;

function strictContract(visible: string): ParsedResponse {
  const tag = " (rule strict-contract)";
  const lastSpan = lastLine(visible, visible.length);
  if (lastSpan === null) return { action: null, selfScore: null, error: "empty response" };
  const prevSpan = lastLine(visible, lastSpan[0] - 1);
  const last = visible.slice(lastSpan[0], lastSpan[1]);
  const actionOf = (line: string, from: number, to: number): string | null => {
    const [a, b] = trimSpan(line, from, to);
    return a < b ? line.slice(a, b) : null;
  };

  const scoreAt = lineLabel(last, "score");
  if (scoreAt >= 0 && prevSpan !== null) {
    const prev = visible.slice(prevSpan[0], prevSpan[1]);
    const answerAt = lineLabel(prev, "answer");
    if (answerAt >= 0) {
      const action = actionOf(prev, answerAt, prev.length);
      const selfScore = parseScore(last, scoreAt, last.length);
      if (action === null) return { action: null, selfScore, error: `empty action after 'Answer:'${tag}` };
      return { action, selfScore, error: selfScore === null ? `unparsable score '${shorten(last.slice(scoreAt).trim())}'${tag}` : null };
    }
  }

  const answerAt = lineLabel(last, "answer");
  if (answerAt >= 0) {
    const sep = lastLabel(ONE_LINE_SCORE, last, answerAt);
    if (sep !== null) {
      const action = actionOf(last, answerAt, sep.start);
      const selfScore = parseScore(last, sep.end, last.length);
      if (action === null) return { action: null, selfScore, error: `empty action after 'Answer:'${tag}` };
      return { action, selfScore, error: selfScore === null ? `unparsable score '${shorten(last.slice(sep.end).trim())}'${tag}` : null };
    }
    const action = actionOf(last, answerAt, last.length);
    if (action === null) return { action: null, selfScore: null, error: `empty action after 'Answer:'${tag}` };
    return { action, selfScore: null, error: `missing 'Score:' line after the answer${tag}` };
  }

  if (scoreAt >= 0) return { action: null, selfScore: null, error: `'Score:' line without an 'Answer:' line just before it${tag}` };
  return { action: null, selfScore: null, error: `the response does not end with 'Answer: <action>' and 'Score: <number>' lines${tag}` };
}

/**
 * Parses a reply under `rule`. Reasoning inside `<think>...</think>` is ignored, so an action is always
 * a substring of the reply. An action without a parsable score keeps the action (self-score null).
 */
export function parseResponse(text: string, rule: ParseRule = DEFAULT_PARSE_RULE): ParsedResponse {
  const visible = visiblePart(text);
  if (visible.trim().length === 0) return { action: null, selfScore: null, error: "empty response" };
  return rule === "strict-contract" ? strictContract(visible) : lastAnswer(visible);
}
