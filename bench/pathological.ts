/**
 * Degenerate replies (issue 12, item 1): time per reply size, 10 KB .. 5 MB, for the shapes that
 * used to be quadratic, through every path a reply takes (the red-team cases of
 * tests/redteam/replyShapes.ts, which the tests run too):
 *
 *   parse    parseResponse (the step contract: Answer / Score)
 *   count    countTokens (usage when an endpoint reports none; History ICL budgets)
 *   history  the reply as an earlier turn of the episode and its parsed action in a History ICL block:
 *            makeHistoryBlock + historyContext (budget fit and render)
 *   memory   the reply's action in the trajectory of a summary prompt (summaryMessages), and the
 *            reply itself parsed as a summary answer (nextMemory)
 *
 * Linear means each 10x in size costs ~10x in time; a quadratic path costs ~100x. A series whose
 * time passes --give-up-ms is not continued to larger sizes (it would freeze the bench), and says so.
 * It prints, it never asserts.
 *
 *   npm run bench:pathological
 *   npm run bench:pathological -- --sizes 10000,100000 --shapes underscores,spaces
 */
import { parseArgs } from "node:util";
import { PATHS, SHAPES } from "../tests/redteam/replyShapes.js";

function main(): void {
  const { values: v } = parseArgs({
    options: {
      sizes: { type: "string", default: "10000,100000,1000000,5000000" },
      shapes: { type: "string", default: Object.keys(SHAPES).join(",") },
      paths: { type: "string", default: Object.keys(PATHS).join(",") },
      "give-up-ms": { type: "string", default: "10000" },
    },
  });
  const sizes = v.sizes.split(",").map(Number);
  const giveUp = Number(v["give-up-ms"]);
  const paths = v.paths.split(",");
  const fmt = (n: number) => (n >= 1e6 ? `${n / 1e6} MB` : `${n / 1e3} KB`);
  process.stdout.write(`shape / path${sizes.map((s) => `\t${fmt(s)}`).join("")}\t(ms per reply; x: not run, the previous size passed ${giveUp} ms)\n`);
  for (const shape of v.shapes.split(",")) {
    const make = SHAPES[shape];
    if (!make) throw new Error(`--shapes: unknown shape '${shape}' (known: ${Object.keys(SHAPES).join(", ")})`);
    for (const path of paths) {
      const run = PATHS[path];
      if (!run) throw new Error(`--paths: unknown path '${path}' (known: ${Object.keys(PATHS).join(", ")})`);
      const cells: string[] = [];
      let stopped = false;
      for (const size of sizes) {
        if (stopped) {
          cells.push("x");
          continue;
        }
        const reply = make(size);
        const t = performance.now();
        run(reply);
        const ms = performance.now() - t;
        cells.push(ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
        if (ms > giveUp) stopped = true;
      }
      process.stdout.write(`${shape} / ${path}\t${cells.join("\t")}\n`);
    }
  }
}

main();
