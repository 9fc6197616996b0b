/**
 * The messages of a prompt a memo was made for (a step prompt's token count, its read by the
 * built-in policies), to tell whether a later prompt opens with them: the runner's next step's prompt
 * is the previous one plus a reply and a new user turn, so its memo is the previous one's plus the two.
 * A frozen message (buildStepMessages' turns) that is the same object is the same text, taken without
 * reading it; any other (the system message is a new object at every step, a message may be changed in
 * place) is compared by the role and content it had when pushed.
 */
import type { ChatMessage } from "./types.js";

export class MessagePrefix {
  private readonly messages: ChatMessage[] = [];
  private readonly frozen: boolean[] = [];
  private readonly roles: ChatMessage["role"][] = [];
  private readonly contents: string[] = [];

  get length(): number {
    return this.messages.length;
  }

  push(added: readonly ChatMessage[]): void {
    for (const m of added) {
      this.messages.push(m);
      this.frozen.push(Object.isFrozen(m));
      this.roles.push(m.role);
      this.contents.push(m.content);
    }
  }

  /** Whether `messages` opens with these messages (the same frozen objects, or the same roles and contents). */
  opens(messages: readonly ChatMessage[]): boolean {
    const n = this.messages.length;
    if (messages.length < n) return false;
    for (let i = 0; i < n; i++) {
      const m = messages[i]!;
      if (this.frozen[i] && m === this.messages[i]) continue;
      if (m.role !== this.roles[i] || m.content !== this.contents[i]) return false;
    }
    return true;
  }
}
