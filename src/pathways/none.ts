/** The `none` pathway: no experience, ever (the floor every other pathway is compared with). */
import { definePathway, type ExperienceSnapshot } from "./types.js";

const EMPTY: ExperienceSnapshot = { forStep: () => ({ text: "", fields: {} }) };

/** The state is only how many exploration episodes have gone by. */
export const nonePathway = definePathway<{ consolidated: number }>({
  name: "none",
  judged: false,
  files: [],
  create: () => ({ consolidated: 0 }),
  consolidated: (s) => s.consolidated,
  consolidate: async (_host, _s, x) => ({ consolidated: x }),
  snapshot: () => EMPTY,
  rebuild: (_logs, k) => ({ consolidated: k }),
});
