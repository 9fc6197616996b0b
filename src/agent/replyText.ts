/**
 * Reading a reply's text, for every role (step, curriculum, verifier) and for replay:
 * - `<think>` blocks in a reply's content (a reasoning model served without a reasoning parser puts
 *   its scratch work there): parsers read around them, and earlier turns are replayed without them
 *   by default (endpoints.md, "The context is a hard bound"; `--keep-think` keeps them);
 * - a line's decoration (markdown emphasis, list marks) that the role parsers look past.
 * Linear in the text: each tag is searched once, from where the last search ended.
 */

const OPEN = /<think>/gi;
const CLOSE = /<\/think>/gi;

/**
 * `text` without its think blocks: `<think>...</think>` removed; an unclosed `<think>` removes the
 * rest (a reply cut at the cap mid-thought); a `</think>` with no opening tag before it removes
 * everything before it (chat templates that open the block in the prompt). The text unchanged,
 * the very same string, when it has no tag.
 */
export function dropThinkBlocks(text: string): string {
  OPEN.lastIndex = 0;
  CLOSE.lastIndex = 0;
  const firstOpen = OPEN.exec(text);
  const firstClose = CLOSE.exec(text);
  if (firstOpen === null && firstClose === null) return text;
  let out = "";
  let pos = 0;
  // A close before any open: the template opened the block in the prompt.
  if (firstClose !== null && (firstOpen === null || firstClose.index < firstOpen.index)) pos = firstClose.index + firstClose[0].length;
  for (;;) {
    OPEN.lastIndex = pos;
    const o = OPEN.exec(text);
    if (o === null) {
      out += text.slice(pos);
      break;
    }
    out += text.slice(pos, o.index);
    CLOSE.lastIndex = o.index + o[0].length;
    const c = CLOSE.exec(text);
    if (c === null) break;
    pos = c.index + c[0].length;
  }
  return out.trim();
}

/** True when the content carries a think block, closed or not (an unclosed one is reasoning cut at the cap). */
export function hasThinkTag(text: string): boolean {
  OPEN.lastIndex = 0;
  CLOSE.lastIndex = 0;
  return OPEN.test(text) || CLOSE.test(text);
}

/** A line without surrounding whitespace, markdown emphasis, backticks and list dashes (a loop, not a regex: linear). */
export function trimMarks(line: string): string {
  const mark = (c: string) => c === "*" || c === "_" || c === "`" || c === " " || c === "\t" || c === "\r";
  let a = 0;
  let b = line.length;
  while (a < b && (mark(line[a]!) || (line[a] === "-" && a === 0) || line[a] === ">")) a++;
  while (b > a && mark(line[b - 1]!)) b--;
  return line.slice(a, b);
}
