/**
 * Prompt assembly for one step (protocol.md, "Prompt layout") and its inverse, which lets
 * `s3gym serve` and the built-in models answer from the chat messages alone.
 *
 * Layout (stable prefix first, so provider prefix caches hit):
 *   system     the rules text for the config in use (it ends with the response contract)
 *   user #1    <experience>...</experience> (History context or Memory text; omitted when empty),
 *              then the first observation
 *   assistant  the model's own earlier answers, verbatim
 *   user #k    <feedback> of the previous step, then the current observation, then the reminder
 * The experience shares the first user message instead of standing alone, so that user and
 * assistant turns strictly alternate (some chat templates reject two user turns in a row).
 * Every user turn ends with the same one-line reminder, so an earlier turn never changes when a new
 * one is appended (the whole conversation so far stays a cacheable prefix).
 */
import { CONTRACT_REMINDER } from "../games/responseContract.js";
import type { PolicyContext } from "../games/types.js";
import { MessagePrefix } from "../models/messagePrefix.js";
import type { ChatMessage } from "../models/types.js";
import { BoundedCache } from "../util/boundedCache.js";
import { parseResponse } from "./parseResponse.js";
import { turnTextOf } from "./reply.js";
import { dropThinkBlocks } from "./replyText.js";

/** One earlier step of the current episode, as the model lived it. */
export interface EarlierTurn {
  observation: string;
  /** The model's raw reply, replayed verbatim. */
  response: string;
  /** The visible feedback the game gave after that reply. */
  feedback: string;
  /** Only with reward visibility `visible` (an ablation): the verifier reward and running score. */
  reward?: number;
  scoreAfter?: number;
}

/** The fields of a step record an earlier turn is built from (logs/schema.ts StepRecord has them all). */
export interface TurnSource {
  observation: string;
  response: string;
  action: string | null;
  self_score: number | null;
  answer_source?: "content" | "reasoning";
  feedback: string;
  reward: number;
  score_after: number;
}

/**
 * A step as an earlier turn of the steps after it in its episode: its answer as turnTextOf shows it,
 * think blocks dropped unless the run kept them (`--keep-think`). The one builder of earlier turns: the
 * live episode builds each from the record it has just logged, the replay from the same record read back.
 */
export function earlierTurnOf(step: TurnSource, keepThink: boolean): EarlierTurn {
  const text = turnTextOf(step);
  // Frozen: a prompt built on it may be extended at the next step without reading it again (buildStepMessages).
  return Object.freeze({ observation: step.observation, response: keepThink ? text : dropThinkBlocks(text), feedback: step.feedback, reward: step.reward, scoreAfter: step.score_after });
}

export interface StepPromptInput {
  /** The game's rules text (system message). */
  rules: string;
  /** The experience block: history context or memory text; "" for `none` and `training`. */
  experience: string;
  /** Earlier steps of this episode, oldest first. */
  turns: EarlierTurn[];
  /** The current observation. */
  observation: string;
  /** `hidden` (main setting) or `visible` (ablation: rewards appear in the feedback tags). */
  rewardVisibility: "hidden" | "visible";
}

/** What an empty earlier reply is replayed as (some APIs reject empty assistant messages). */
export const EMPTY_REPLY = "(empty reply)";

function feedbackTag(turn: EarlierTurn, visibility: "hidden" | "visible"): string {
  const extra = visibility === "visible" && turn.reward !== undefined ? ` [verifier reward: ${turn.reward}; episode total so far: ${turn.scoreAfter ?? "?"}]` : "";
  return `<feedback>${turn.feedback || "(none)"}${extra}</feedback>`;
}

function userTurn(observation: string, feedback: string | null, experience: string | null): string {
  const parts: string[] = [];
  if (experience) parts.push(`<experience>\n${experience}\n</experience>`);
  if (feedback !== null) parts.push(feedback);
  parts.push(`<observation>\n${observation}\n</observation>`);
  parts.push(CONTRACT_REMINDER);
  return parts.join("\n\n");
}

/**
 * The user message that shows earlier turn `turn`'s observation, with everything its text depends on.
 * A step's prompt repeats every earlier turn, so without this an episode of n steps would rebuild
 * n^2/2 user messages (and, at its first turn, copy the whole experience text at every step); the
 * entry is used only while all of its inputs are the same, so the text is the same byte for byte.
 * The entry keeps one message object for it, so every later prompt that shows the turn holds that
 * same object: readers memoise by the object (readers below, TokenCounter) in O(1), where a memo by
 * the text must hash and compare its characters. The objects are frozen: a reader that changed one
 * would change every later prompt.
 */
interface UserText {
  observation: string;
  previous: EarlierTurn | null;
  feedback: string | undefined;
  reward: number | undefined;
  scoreAfter: number | undefined;
  visibility: "hidden" | "visible";
  experience: string | null;
  message: ChatMessage;
}
/**
 * Two entries per turn: its place in the episode (after the turn before it), and as the first turn
 * of a prompt cut to a tail (History's token count builds such tails at every step), so neither use
 * evicts the other's.
 */
const userTexts = new WeakMap<EarlierTurn, { after?: UserText; first?: UserText }>();
/**
 * The current turn's message of the last prompt built after each turn: at the next step that turn is
 * an earlier one, and taking its message from here keeps it the same object from the step it was new.
 */
const currentTexts = new WeakMap<EarlierTurn, UserText>();

function sameInputs(e: UserText | undefined, observation: string, previous: EarlierTurn | null, visibility: "hidden" | "visible", experience: string | null): e is UserText {
  return (
    e !== undefined &&
    e.observation === observation &&
    e.previous === previous &&
    e.feedback === previous?.feedback &&
    e.reward === previous?.reward &&
    e.scoreAfter === previous?.scoreAfter &&
    e.visibility === visibility &&
    e.experience === experience
  );
}

function newUserText(observation: string, previous: EarlierTurn | null, visibility: "hidden" | "visible", experience: string | null): UserText {
  const message = userMessage(userTurn(observation, previous ? feedbackTag(previous, visibility) : null, experience));
  return { observation, previous, feedback: previous?.feedback, reward: previous?.reward, scoreAfter: previous?.scoreAfter, visibility, experience, message };
}

const userMessage = (content: string): ChatMessage => Object.freeze({ role: "user", content });

function earlierUserMessage(turn: EarlierTurn, previous: EarlierTurn | null, visibility: "hidden" | "visible", experience: string | null): ChatMessage {
  let slots = userTexts.get(turn);
  if (slots === undefined) userTexts.set(turn, (slots = {}));
  const slot = previous === null ? "first" : "after";
  const e = slots[slot];
  if (sameInputs(e, turn.observation, previous, visibility, experience)) return e.message;
  const current = previous === null ? undefined : currentTexts.get(previous);
  const made =
    previous === null && experience
      ? firstUserText(turn.observation, visibility, experience)
      : sameInputs(current, turn.observation, previous, visibility, experience)
        ? current
        : newUserText(turn.observation, previous, visibility, experience);
  slots[slot] = made;
  return made.message;
}

/**
 * The first user messages built lately (no turn before them: the experience, then an observation).
 * An episode's first step shows its observation as the current turn and its second step as the
 * earlier first turn: one message object serves both, and every episode of a checkpoint that starts
 * from the same observation, so the experience text (~100k tokens) is copied and counted once, not
 * at every episode's first two steps. A few entries, only for messages with an experience (others are
 * cheap to build and would push these out): concurrent episodes interleave.
 */
const FIRST_TEXTS = 8;
const firstTexts: UserText[] = [];
function firstUserText(observation: string, visibility: "hidden" | "visible", experience: string | null): UserText {
  for (const e of firstTexts) if (sameInputs(e, observation, null, visibility, experience)) return e;
  const made = newUserText(observation, null, visibility, experience);
  firstTexts.unshift(made);
  if (firstTexts.length > FIRST_TEXTS) firstTexts.pop();
  return made;
}

/** The message of a prompt's current (newest) user turn; remembered after its previous turn (currentTexts). */
function currentUserMessage(observation: string, previous: EarlierTurn | null, visibility: "hidden" | "visible", experience: string | null): ChatMessage {
  if (previous === null) return experience ? firstUserText(observation, visibility, experience).message : userMessage(userTurn(observation, null, experience));
  const e = currentTexts.get(previous);
  if (sameInputs(e, observation, previous, visibility, experience)) return e.message;
  const made = newUserText(observation, previous, visibility, experience);
  currentTexts.set(previous, made);
  return made.message;
}

/** Each earlier turn's assistant message: one object for every prompt that replays the turn. */
const assistantMessages = new WeakMap<EarlierTurn, ChatMessage>();

function assistantMessage(turn: EarlierTurn): ChatMessage {
  const content = turn.response.length > 0 ? turn.response : EMPTY_REPLY;
  const hit = assistantMessages.get(turn);
  if (hit !== undefined && hit.content === content) return hit;
  const made: ChatMessage = Object.freeze({ role: "assistant", content });
  assistantMessages.set(turn, made);
  return made;
}

/**
 * The earlier turns' messages of the last prompt built on a turns array (the runner's episode grows
 * one array by a turn per step): the next step's prompt on the same array, with the same rules,
 * experience and visibility, takes them as they are and builds only its new turns', where each turn's
 * message was otherwise looked up again at every step (an episode's prompts cost O(steps^2) lookups).
 * Only frozen turns (earlierTurnOf's) are kept: a turn the same object is then the same text; `turns`
 * holds them by object, so an array changed in place is seen. Arrays of a few turns are not kept.
 */
interface PromptBody {
  rules: string;
  experience: string;
  visibility: "hidden" | "visible";
  turns: EarlierTurn[];
  /** Per kept turn: its user message and its assistant message. */
  messages: ChatMessage[];
}
const promptBodies = new WeakMap<readonly EarlierTurn[], PromptBody>();
const PROMPT_BODY_MIN_TURNS = 4;

/** How many of the body's turns `turns` still opens with (0 when the body was built for other inputs). */
function bodyValid(b: PromptBody, input: StepPromptInput): number {
  if (b.rules !== input.rules || b.experience !== input.experience || b.visibility !== input.rewardVisibility || b.turns.length > input.turns.length) return 0;
  const kept = b.turns;
  const turns = input.turns;
  for (let i = 0; i < kept.length; i++) if (kept[i] !== turns[i]) return 0;
  return kept.length;
}

/** The messages for one step. */
export function buildStepMessages(input: StepPromptInput): ChatMessage[] {
  const { turns, rewardVisibility } = input;
  let body = turns.length >= PROMPT_BODY_MIN_TURNS ? promptBodies.get(turns) : undefined;
  const from = body !== undefined ? bodyValid(body, input) : 0;
  if (from === 0 && body !== undefined) body = undefined;
  const messages: ChatMessage[] = [{ role: "system", content: input.rules }];
  if (body !== undefined) for (const m of body.messages) messages.push(m);
  else if (turns.length >= PROMPT_BODY_MIN_TURNS) {
    body = { rules: input.rules, experience: input.experience, visibility: rewardVisibility, turns: [], messages: [] };
    promptBodies.set(turns, body);
  }
  // Whether the body still grows: it stops at the first turn that is not frozen.
  let growing = body !== undefined;
  for (let i = from; i <= turns.length; i++) {
    const previous = i > 0 ? turns[i - 1]! : null;
    const experience = i === 0 ? input.experience : null;
    const own = turns[i];
    if (own === undefined) {
      messages.push(currentUserMessage(input.observation, previous, rewardVisibility, experience));
      break;
    }
    const user = earlierUserMessage(own, previous, rewardVisibility, experience);
    const reply = assistantMessage(own);
    messages.push(user, reply);
    if (growing && Object.isFrozen(own)) body!.turns.push(own), body!.messages.push(user, reply);
    else growing = false;
  }
  return messages;
}

function between(text: string, open: string, close: string): string | null {
  const start = text.lastIndexOf(open);
  const end = text.lastIndexOf(close);
  if (start < 0 || end < start) return null;
  return text
    .slice(start + open.length, end)
    .replace(/^\n/, "")
    .replace(/\n$/, "");
}

/**
 * Recovers what a text policy needs (rules, current observation, this episode's history) from a
 * step prompt built by `buildStepMessages`. Returns null when the messages are not a step prompt.
 *
 * An episode's prompt at step n is its prompt at step n-1 plus the reply and the new user turn, and
 * the built-in models read every one: each read is kept by its prompt's last message (contextAfter)
 * and the next step's prompt, when it extends that one (same roles and contents, compared mostly by
 * reference), appends one history entry instead of reading every turn again. The history entries
 * are frozen and shared by the contexts of later steps, so a policy may memoise by an entry object.
 */
export function messagesToPolicyContext(messages: readonly ChatMessage[]): PolicyContext | null {
  const extended = extendContext(messages);
  if (extended !== undefined) return extended;
  const system = messages.find((m) => m.role === "system");
  const users = messages.filter((m) => m.role === "user");
  const assistants = messages.filter((m) => m.role === "assistant");
  if (!system || users.length === 0 || assistants.length !== users.length - 1) return null;
  const read = readTurns(users, assistants);
  if (read === null) return null;
  const { observations, feedbacks, actions } = read;
  const history = assistants.map((_, i) =>
    Object.freeze({
      observation: observations[i]!,
      action: actions[i]!,
      feedback: feedbacks[i + 1] === "(none)" ? "" : feedbacks[i + 1]!,
    }),
  );
  return remember(messages, { rules: system.content, observation: observations.at(-1)!, history });
}

/** A step prompt's read, by the prompt's last message: the messages it was read from, and the read. */
interface ContextRead {
  messages: MessagePrefix;
  rules: string;
  observation: string;
  history: PolicyContext["history"];
}
const contextAfter = new WeakMap<ChatMessage, ContextRead>();

function remember(messages: readonly ChatMessage[], ctx: PolicyContext): PolicyContext {
  const last = messages.at(-1);
  if (last !== undefined)
    if (last !== undefined) {
      const read = new MessagePrefix();
      read.push(messages);
      contextAfter.set(last, { messages: read, rules: ctx.rules, observation: ctx.observation, history: ctx.history.slice() });
    }
  return ctx;
}

/**
 * The read of a prompt that extends the previous step's prompt by an assistant reply and a user turn
 * (undefined when it does not, or that prompt was not read): the previous read plus one history entry.
 */
function extendContext(messages: readonly ChatMessage[]): PolicyContext | null | undefined {
  const n = messages.length;
  if (n < 3) return undefined;
  const prevLast = messages[n - 3]!;
  const prev = contextAfter.get(prevLast);
  if (prev === undefined || prev.messages.length !== n - 2) return undefined;
  const reply = messages[n - 2]!;
  const turn = messages[n - 1]!;
  if (reply.role !== "assistant" || turn.role !== "user") return undefined;
  if (!prev.messages.opens(messages)) return undefined;
  // Read at most once per extension: the previous entry's arrays move to the new one.
  contextAfter.delete(prevLast);
  const read = userRead(turn);
  if (read === null) return null;
  const entry = Object.freeze({ observation: prev.observation, action: actionRead(reply), feedback: read.feedback === "(none)" ? "" : read.feedback });
  prev.messages.push([reply, turn]);
  prev.history.push(entry);
  const ctx: PolicyContext = { rules: prev.rules, observation: read.observation, history: prev.history.slice() };
  contextAfter.set(turn, { ...prev, observation: read.observation });
  return ctx;
}

/**
 * The reads of a step prompt's turns. The runner's prompts reuse one message object per turn across
 * steps (buildStepMessages), so each message's read is kept by the object (O(1), checked against its
 * content): a step reads only its new turn, without hashing every earlier turn's text again. Messages
 * from elsewhere (a request to `s3gym serve`, a test) are new objects: they are read through the memo
 * tables by their text.
 */
interface TurnReads {
  observations: string[];
  feedbacks: string[];
  actions: (string | null)[];
}
const userReads = new WeakMap<ChatMessage, { content: string; read: { observation: string; feedback: string } | null }>();
const actionReads = new WeakMap<ChatMessage, { content: string; action: string | null }>();

function userRead(m: ChatMessage): { observation: string; feedback: string } | null {
  const hit = userReads.get(m);
  if (hit !== undefined && hit.content === m.content) return hit.read;
  const read = readUserTurn(m.content);
  userReads.set(m, { content: m.content, read });
  return read;
}

function actionRead(m: ChatMessage): string | null {
  const hit = actionReads.get(m);
  if (hit !== undefined && hit.content === m.content) return hit.action;
  const action = replyAction(m.content);
  actionReads.set(m, { content: m.content, action });
  return action;
}

function readTurns(users: readonly ChatMessage[], assistants: readonly ChatMessage[]): TurnReads | null {
  const observations: string[] = [];
  const feedbacks: string[] = [];
  for (const m of users) {
    const turn = userRead(m);
    if (turn === null) return null;
    observations.push(turn.observation);
    feedbacks.push(turn.feedback);
  }
  return { observations, feedbacks, actions: assistants.map(actionRead) };
}

/**
 * Bounded memo tables of the two pure reads below. A step prompt repeats every earlier turn of the
 * episode, so without them reading one episode's prompts is quadratic in its steps. Texts over
 * MEMO_MAX_CHARS (a first message carrying a long experience block) are read directly: cheap here
 * (the tags are found from the end), and not worth keeping alive.
 */
const MEMO_ENTRIES = 8192;
const MEMO_MAX_CHARS = 16_384;
const userTurnMemo = new BoundedCache<string, { observation: string; feedback: string } | null>(MEMO_ENTRIES);
const actionMemo = new BoundedCache<string, string | null>(MEMO_ENTRIES);

function memoised<V>(memo: BoundedCache<string, V>, key: string, read: (key: string) => V): V {
  return key.length > MEMO_MAX_CHARS ? read(key) : memo.getOrSet(key, () => read(key));
}

/** A user message's own observation and feedback tag (feedback without a visible reward); null if it has no observation. */
function readUserTurn(content: string): { observation: string; feedback: string } | null {
  return memoised(userTurnMemo, content, (text) => {
    // The experience block may quote observations of earlier episodes: look only after it.
    const expEnd = text.lastIndexOf("</experience>");
    const own = expEnd >= 0 ? text.slice(expEnd) : text;
    const observation = between(own, "<observation>", "</observation>");
    if (observation === null) return null;
    const fb = between(own, "<feedback>", "</feedback>");
    return { observation, feedback: (fb ?? "").replace(/ \[verifier reward: [^\]]*\]$/, "") };
  });
}

/** The action an earlier reply gave (the default parse rule, as the policies read it). */
function replyAction(content: string): string | null {
  return memoised(actionMemo, content, (text) => parseResponse(text).action);
}
