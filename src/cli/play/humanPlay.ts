/**
 * A person playing at the terminal (`s3gym play --policy human`): each step asks for an action, then
 * for a self-score, as the rules on screen ask a model for `Answer:` and `Score:`. Enter alone at the
 * score prompt records no self-score (the log's null). The episode ends by itself when the game is
 * over; end-of-input (Ctrl-D) stops early. Lines come from a reader the caller closes afterwards, so
 * the process exits at the episode's end instead of waiting for more input.
 */
import { createInterface } from "node:readline";
import type { ActionSource } from "../../games/episode.js";
import { cut, escapeControl } from "../../util/outsideText.js";

/** Next input line, or undefined at end of input. */
export type LineReader = () => Promise<string | undefined>;

/** Lines of stdin, and a close that releases it (without it the process waits on the open stream). */
export function stdinLines(): { next: LineReader; close: () => void } {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const it = rl[Symbol.asyncIterator]();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    rl.close();
    process.stdin.pause();
    process.stdin.unref?.();
  };
  return {
    next: async () => {
      if (closed) return undefined;
      const next = await it.next();
      if (next.done) {
        close();
        return undefined;
      }
      return next.value;
    },
    close,
  };
}

/** What the player is told once, before the first screen. */
export const HUMAN_INTRO =
  "You play at the terminal. Each step: type your action at 'your action>', then at 'your self-score>'\n" +
  "the reward you expect for that move (a number: the rules' 'Score:'), or press Enter for none.\n" +
  "The episode ends by itself when the game is over; Ctrl-D stops early.\n\n";

/** A self-score as typed: null for an empty line, the number, or an error text naming the fix. */
export function readSelfScore(line: string): { score: number | null } | { error: string } {
  const t = line.trim();
  if (t === "") return { score: null };
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(n)) return { error: `'${escapeControl(cut(t, 40))}' is not a number: type a number, or press Enter for no self-score` };
  return { score: n };
}

/** The action source of a person: prompts on `write`, reads lines from `next`. */
export function humanSource(next: LineReader, write: (s: string) => void, opts: { prompts: boolean }): ActionSource {
  return async (ctx) => {
    if (opts.prompts) write(`${ctx.observation}\nyour action> `);
    const action = await next();
    if (action === undefined) return undefined;
    for (;;) {
      if (opts.prompts) write("your self-score (Enter for none)> ");
      const line = await next();
      // Input ended after the action: the move stands, with no self-score; the next read stops.
      if (line === undefined) return { action, selfScore: null };
      const r = readSelfScore(line);
      if ("score" in r) return { action, selfScore: r.score };
      write(`${r.error}\n`);
    }
  };
}
