/** Text helpers shared by the seven games (one place instead of seven copies). */

/**
 * Normalises an action string before a game parses it: tolerant of case (lower-cased), surrounding
 * whitespace, a trailing period, markdown emphasis and code marks, and inner runs of spaces; strict
 * about content (nothing else is removed or guessed).
 */
export function normalizeAction(raw: string): string {
  if (isNormal(raw)) return raw;
  // Index arithmetic, not a regex: `^(\*\*|__|\*|_|`)([\s\S]*)\1$` in a loop is quadratic on a long
  // run of marks, and this reads model text (linear in its length, protocol.md "One step").
  let a = 0;
  let b = raw.length;
  const trim = () => {
    while (a < b && isSpace(raw.charCodeAt(a))) a++;
    while (b > a && isSpace(raw.charCodeAt(b - 1))) b--;
  };
  trim();
  // Strip wrapping markdown emphasis / code marks: **x**, *x*, __x__, _x_, `x` (the first that wraps).
  for (;;) {
    const mark = WRAPPING_MARKS.find((m) => b - a >= 2 * m.length && raw.startsWith(m, a) && raw.endsWith(m, b));
    if (mark === undefined) break;
    const [outerA, outerB] = [a, b];
    a += mark.length;
    b -= mark.length;
    trim();
    if (a >= b) {
      [a, b] = [outerA, outerB];
      break;
    }
  }
  if (b > a && raw[b - 1] === ".") b--;
  trim();
  // Same as `.replace(/\s+/g, " ")`, but a single plain space (most of a long text) is not a match.
  return raw
    .slice(a, b)
    .replace(/\s{2,}|[^\S ]/g, " ")
    .toLowerCase();
}

const WRAPPING_MARKS = ["**", "__", "*", "_", "`"] as const;

/**
 * Whether normalizeAction would return `raw` unchanged: printable ASCII without capitals, single
 * inner spaces, no space at either end, no period at the end, and no mark a wrapper starts with at
 * the start. Most answers (and every legal action a policy picks) are already so; the full pass
 * costs a closure, a search over the marks and a regex replace per step, about a tenth of trust's step.
 */
function isNormal(raw: string): boolean {
  const n = raw.length;
  if (n === 0) return true;
  const first = raw.charCodeAt(0);
  // 42 '*', 95 '_', 96 '`' open a wrapper; 32 is a space to trim.
  if (first === 32 || first === 42 || first === 95 || first === 96) return false;
  const last = raw.charCodeAt(n - 1);
  if (last === 32 || last === 46) return false;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const c = raw.charCodeAt(i);
    // Outside 32..126 (tabs, newlines, non-ASCII) or a capital: the full pass decides.
    if (c < 32 || c > 126 || (c >= 65 && c <= 90) || (c === 32 && prev === 32)) return false;
    prev = c;
  }
  return true;
}

/** Exactly the characters `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029 || (c >= 0x2000 && c <= 0x200a) || c === 0x3000 || c === 0x1680 || c === 0x202f || c === 0x205f;
}

/** Formats a number with at most `decimals` decimals and no trailing zeros (-0 prints as 0). */
export function formatNumber(x: number, decimals = 6): string {
  const r = Number(x.toFixed(decimals));
  return Object.is(r, -0) ? "0" : String(r);
}
