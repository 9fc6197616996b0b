/**
 * `builtin:learner`'s answers to the verified pathway's role prompts (verified.md, "Offline"): the
 * one dispatch the learner's answer function calls before treating a prompt as a step or a summary.
 */
import { readCurriculumPrompt } from "../../../agent/curriculumPrompt.js";
import { readVerifierPrompt } from "../../../agent/verifierPrompt.js";
import type { ChatMessage } from "../../../models/types.js";
import { learnerCurriculum } from "./curriculum.js";
import { learnerVerdict } from "./verifier.js";

/** The learner's reply to a curriculum or verifier prompt; null when the messages are neither. */
export function learnerRoleAnswer(messages: readonly ChatMessage[]): string | null {
  const offer = readCurriculumPrompt(messages);
  if (offer) return learnerCurriculum(offer);
  const v = readVerifierPrompt(messages);
  if (v) return learnerVerdict(v);
  return null;
}
