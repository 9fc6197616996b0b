/**
 * A line diff between two texts (consecutive memory versions), for the run page. Longest common
 * subsequence over lines; memory texts are a few dozen lines, and above MAX_CELLS line pairs the diff
 * degrades to "every old line removed, every new line added" instead of taking quadratic time.
 */

/** One line of a diff: kept (`=`), removed (`-`) or added (`+`). */
export interface DiffLine {
  op: "=" | "-" | "+";
  text: string;
}

/** Above this many (old line x new line) pairs the diff is the plain replacement. */
export const MAX_CELLS = 250_000;

function lines(text: string): string[] {
  return text.length === 0 ? [] : text.split("\n");
}

/**
 * The line diff from `before` to `after`: every line of `before` appears once as `=` or `-`, every
 * line of `after` once as `=` or `+`, in order; the `=` lines are a longest common subsequence.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = lines(before);
  const b = lines(after);
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return [...a.map((text) => ({ op: "-" as const, text })), ...b.map((text) => ({ op: "+" as const, text }))];
  // lcs[i][j] = LCS length of a[i..] and b[j..], one row-major array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "=", text: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number)) {
      out.push({ op: "-", text: a[i++] as string });
    } else {
      out.push({ op: "+", text: b[j++] as string });
    }
  }
  while (i < n) out.push({ op: "-", text: a[i++] as string });
  while (j < m) out.push({ op: "+", text: b[j++] as string });
  return out;
}
