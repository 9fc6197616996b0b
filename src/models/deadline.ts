/**
 * A per-attempt deadline that counts only time in which the process could have read the answer.
 *
 * A plain `setTimeout(abort, ms)` fires late when the event loop was blocked (one run's
 * pathological reply being parsed, a big report), and on firing it aborts a call whose answer may
 * have arrived meanwhile and is waiting, unread, in the socket buffer: another run's checkpoint then
 * fails on a false timeout. Node runs expired timers before it polls sockets, so the answer is never
 * seen. Here, a timer that fires more than LAG_TOLERANCE_MS late is not trusted: the deadline is
 * moved on by the lateness (the time the loop was blocked), and the next turn of the loop reads what
 * arrived. A server that really is silent still times out after `ms` of responsive time.
 */

/** A timer firing this much later than asked means the event loop was blocked, not the server slow. */
export const LAG_TOLERANCE_MS = 250;

/** Node's timers hold at most a signed 32-bit millisecond delay (a larger one is clamped to 1 ms). */
export const MAX_TIMER_MS = 2_147_483_647;

export interface Deadline {
  readonly signal: AbortSignal;
  /** Milliseconds the deadline was moved on because the event loop was blocked. */
  readonly extendedMs: () => number;
  clear(): void;
}

export function startDeadline(ms: number, now: () => number = () => performance.now()): Deadline {
  if (!(ms > 0) || ms > MAX_TIMER_MS) throw new RangeError(`deadline ${ms} ms is outside 1..${MAX_TIMER_MS}`);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let extended = 0;
  const arm = (delay: number): void => {
    const due = now() + delay;
    timer = setTimeout(() => {
      const late = now() - due;
      if (late > LAG_TOLERANCE_MS) {
        extended += late;
        arm(Math.min(late, MAX_TIMER_MS));
        return;
      }
      timer = null;
      controller.abort();
    }, delay);
  };
  arm(ms);
  return {
    signal: controller.signal,
    extendedMs: () => extended,
    clear: () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
