/** The `none` pathway: no experience, ever (the floor every other pathway is compared with). */
import { definePathway, NO_EXPERIENCE } from "./types.js";

/** The state is only how many exploration episodes have gone by. */
export const nonePathway = definePathway<{ consolidated: number }>({
  name: "none",
  judged: false,
  protocolLoop: true,
  inDefaultMatrix: true,
  files: [],
  create: () => ({ consolidated: 0 }),
  consolidated: (s) => s.consolidated,
  consolidate: async (_host, _s, x) => ({ consolidated: x }),
  snapshot: () => NO_EXPERIENCE,
  rebuild: (_logs, k) => ({ consolidated: k }),
});
