/**
 * A word for a POSIX shell (bash, sh, an sbatch script): left bare when it holds only characters no
 * shell treats specially, single-quoted otherwise (a `'` inside becomes `'\''`). Inside single quotes
 * nothing is expanded: no `$`, backtick, glob or `;` of a model name can act. Control characters are
 * not this function's concern: callers that write a script refuse them (a newline would still be
 * data here, but not in a heredoc or a #SBATCH line).
 */
export function shellQuote(word: string): string {
  return word !== "" && /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** Words joined as one command line, each quoted. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
