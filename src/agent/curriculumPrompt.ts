/**
 * The curriculum role of the `verified` pathway (verified.md, "Roles"): before each exploration
 * batch a call chooses, for every episode of the batch, one seed of the run's exploration list and
 * one explore variant of the game. The prompt shows the memory, every seed with what was played on
 * it and what the verifier said, and the variants; the reply is read strictly:
 *
 *   Reason: <one line>
 *   Episode <n>: seed <seed>, variant <name>       (one line per episode of the batch)
 *
 * Every episode of the batch exactly once, a listed seed, a listed variant, no seed twice in a batch;
 * anything else rejects the reply (the pathway falls back to the next untried seeds, logged).
 */
import type { ChatMessage } from "../models/types.js";
import { dropThinkBlocks, trimMarks } from "./replyText.js";
import type { Outcome } from "./verifierPrompt.js";

export const CURRICULUM_TITLE = "# S3Gym curriculum";

export interface SeedHistory {
  seed: number;
  /** Episodes already played (or planned) on this seed, oldest first. */
  played: { episode: number; variant: string; outcome: Outcome | null }[];
}

export interface CurriculumOffer {
  /** `broad` (a diverse batch at once) or `deep` (one episode aimed at the hardest gaps). */
  phase: "broad" | "deep";
  /** The episode numbers to choose for. */
  episodes: number[];
  seeds: SeedHistory[];
  /** `explore` first, then the game's named variants, each with how it differs from explore. */
  variants: { name: string; differs: string }[];
  /** The current memory text ("" when empty). */
  memory: string;
  /** The explore rules text (the game). */
  rules: string;
}

export interface CurriculumChoice {
  episode: number;
  seed: number;
  variant: string;
}

export function buildCurriculumMessages(o: CurriculumOffer): ChatMessage[] {
  const system = [
    CURRICULUM_TITLE,
    "You plan an agent's exploration of the game below so that its verified memory grows as useful as possible.",
    o.phase === "broad"
      ? "This is the BROAD phase: choose a diverse batch (different seeds, different variants) to discover the game's structure."
      : "This is the DEEP phase: choose the episode that targets the hardest cases: failures, uncertain outcomes, facts not yet verified.",
    "Reply with one line `Reason: <why>` and then exactly one line per episode:",
    "Episode <n>: seed <seed>, variant <name>",
    "using only the seeds and variants listed, every episode once, and no seed twice in this batch.",
  ].join("\n");
  const seedLines = o.seeds.map((s) =>
    s.played.length === 0 ? `seed ${s.seed}: untried` : `seed ${s.seed}: ${s.played.map((p) => `episode ${p.episode} (variant ${p.variant}): ${p.outcome ?? "not verified"}`).join("; ")}`,
  );
  const user = [
    `<rules>\n${o.rules}\n</rules>`,
    `<memory>\n${o.memory || "(empty)"}\n</memory>`,
    `<seeds>\n${seedLines.join("\n")}\n</seeds>`,
    `<variants>\n${o.variants.map((v) => `${v.name}: ${v.differs}`).join("\n")}\n</variants>`,
    `<phase>${o.phase}</phase>`,
    `<episodes>${o.episodes.join(",")}</episodes>`,
  ].join("\n\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

export function isCurriculumRequest(messages: readonly ChatMessage[]): boolean {
  return messages.some((m) => m.role === "system" && m.content.startsWith(CURRICULUM_TITLE));
}

export type CurriculumParse = { ok: true; choices: CurriculumChoice[]; reason: string } | { ok: false; error: string };

const CHOICE_LINE = /^episode\s+(\d{1,6})\s*:\s*seed\s+(\d{1,16})\s*,\s*variant\s+([A-Za-z0-9_-]{1,40})$/i;

/** Parses a curriculum reply against its offer. Total: the choices or the reason they were rejected. */
export function parseCurriculum(reply: string, offer: Pick<CurriculumOffer, "episodes" | "seeds" | "variants">): CurriculumParse {
  const seeds = new Set(offer.seeds.map((s) => s.seed));
  const variants = new Set(offer.variants.map((v) => v.name));
  const wanted = new Set(offer.episodes);
  const byEpisode = new Map<number, CurriculumChoice>();
  let reason = "";
  const lines = dropThinkBlocks(reply).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = trimMarks(lines[i]!);
    if (/^reason:/i.test(line)) {
      reason = line.slice("reason:".length).trim().slice(0, 500);
      continue;
    }
    if (!/^episode\b/i.test(line)) continue;
    const m = CHOICE_LINE.exec(line);
    if (!m) return { ok: false, error: `line ${i + 1}: expected 'Episode <n>: seed <seed>, variant <name>'` };
    const episode = Number(m[1]);
    const seed = Number(m[2]);
    const variant = m[3]!;
    if (!wanted.has(episode)) return { ok: false, error: `line ${i + 1}: episode ${episode} is not in this batch (${offer.episodes.join(",")})` };
    if (byEpisode.has(episode)) return { ok: false, error: `line ${i + 1}: episode ${episode} is chosen twice` };
    if (!seeds.has(seed)) return { ok: false, error: `line ${i + 1}: seed ${seed} is not in the exploration list` };
    if (!variants.has(variant)) return { ok: false, error: `line ${i + 1}: variant '${variant}' is not offered (${[...variants].join(", ")})` };
    if ([...byEpisode.values()].some((c) => c.seed === seed)) return { ok: false, error: `line ${i + 1}: seed ${seed} is chosen twice in one batch` };
    byEpisode.set(episode, { episode, seed, variant });
  }
  const missing = offer.episodes.filter((e) => !byEpisode.has(e));
  if (missing.length > 0) return { ok: false, error: `no choice for episode${missing.length > 1 ? "s" : ""} ${missing.join(",")}` };
  return { ok: true, choices: offer.episodes.map((e) => byEpisode.get(e)!), reason };
}

/** The parts of a curriculum prompt a built-in curriculum reads (null when the prompt is not one). */
export function readCurriculumPrompt(messages: readonly ChatMessage[]): CurriculumOffer | null {
  if (!isCurriculumRequest(messages)) return null;
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  const section = (tag: string): string => {
    const open = `<${tag}>`;
    const a = user.indexOf(open);
    const b = user.indexOf(`</${tag}>`, a);
    return a >= 0 && b > a ? user.slice(a + open.length, b).trim() : "";
  };
  const seeds: SeedHistory[] = [];
  for (const line of section("seeds").split("\n")) {
    const m = /^seed (\d+): (.*)$/.exec(line);
    if (!m) continue;
    const played =
      m[2] === "untried"
        ? []
        : m[2]!.split("; ").flatMap((p) => {
            const q = /^episode (\d+) \(variant ([A-Za-z0-9_-]+)\): (success|failure|uncertain|not verified)$/.exec(p);
            return q ? [{ episode: Number(q[1]), variant: q[2]!, outcome: q[3] === "not verified" ? null : (q[3] as Outcome) }] : [];
          });
    seeds.push({ seed: Number(m[1]), played });
  }
  const variants = section("variants")
    .split("\n")
    .flatMap((l) => {
      const i = l.indexOf(": ");
      return i > 0 ? [{ name: l.slice(0, i), differs: l.slice(i + 2) }] : [];
    });
  const memory = section("memory");
  return {
    phase: section("phase") === "deep" ? "deep" : "broad",
    episodes: section("episodes")
      .split(",")
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
    seeds,
    variants,
    memory: memory === "(empty)" ? "" : memory,
    rules: section("rules"),
  };
}

export function formatCurriculum(choices: readonly CurriculumChoice[], reason: string): string {
  return [`Reason: ${reason}`, ...choices.map((c) => `Episode ${c.episode}: seed ${c.seed}, variant ${c.variant}`)].join("\n");
}
