/**
 * `builtin:learner` as the verified pathway's curriculum (verified.md, "Offline"): broad batches take
 * untried seeds in list order, spread over explore and the named variants (episode e plays variant
 * (e - 1) mod the number offered, so a batch is diverse); the deep phase replays its worst: the
 * earliest seed whose latest verdict was a failure or uncertain and that it has retried least, on
 * the variant it went wrong on; with no such seed, the next untried one on explore.
 */
import { formatCurriculum, type CurriculumChoice, type CurriculumOffer } from "../../../agent/curriculumPrompt.js";

export function learnerCurriculumChoices(offer: CurriculumOffer): { choices: CurriculumChoice[]; reason: string } {
  const untried = offer.seeds.filter((s) => s.played.length === 0).map((s) => s.seed);
  const variants = offer.variants.length > 0 ? offer.variants.map((v) => v.name) : ["explore"];
  if (offer.phase === "broad") {
    const choices = offer.episodes.map((episode, i) => ({ episode, seed: untried[i] ?? offer.seeds[i % offer.seeds.length]?.seed ?? 0, variant: variants[(episode - 1) % variants.length]! }));
    return { choices, reason: "broad: untried seeds, spread over the variants" };
  }
  const worst = offer.seeds
    .filter((s) => s.played.length > 0 && s.played.at(-1)!.outcome !== "success")
    .sort((a, b) => a.played.length - b.played.length || a.played[0]!.episode - b.played[0]!.episode);
  const choices: CurriculumChoice[] = [];
  let u = 0;
  for (const [i, episode] of offer.episodes.entries()) {
    const w = worst[i];
    if (w) choices.push({ episode, seed: w.seed, variant: w.played.at(-1)!.variant });
    else choices.push({ episode, seed: untried[u++] ?? offer.seeds[0]?.seed ?? 0, variant: "explore" });
  }
  const why =
    worst.length > 0 ? `deep: retry seed ${worst[0]!.seed}, whose last verdict was ${worst[0]!.played.at(-1)!.outcome ?? "not verified"}` : "deep: no failure left to retry, the next untried seed";
  return { choices, reason: why };
}

export function learnerCurriculum(offer: CurriculumOffer): string {
  const { choices, reason } = learnerCurriculumChoices(offer);
  return formatCurriculum(choices, reason);
}
