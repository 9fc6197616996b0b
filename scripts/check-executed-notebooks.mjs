#!/usr/bin/env node
// Checks executed notebooks (CI, after `npm run reproduce -- --quick`), independently of the kit's own
// code: every notebook of notebooks/ has an executed copy in DIR, every code cell ran (execution
// count set), no cell has an error output, and each notebook shows at least one rich output whose
// bundle has a text/plain fallback (what survives export). Exits 1 naming every problem.
//
//   node scripts/check-executed-notebooks.mjs DIR
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/check-executed-notebooks.mjs DIR   (e.g. figures/quick/notebooks)");
  process.exit(2);
}
const committed = fileURLToPath(new URL("../notebooks/", import.meta.url));
const names = readdirSync(committed)
  .filter((f) => f.endsWith(".ipynb"))
  .sort();
const problems = [];
for (const name of names) {
  const path = join(dir, name);
  if (!existsSync(path)) {
    problems.push(`${name}: no executed copy in ${dir}`);
    continue;
  }
  let nb;
  try {
    nb = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    problems.push(`${name}: not JSON (${e.message})`);
    continue;
  }
  if (!Array.isArray(nb?.cells)) {
    problems.push(`${name}: not a notebook (no cells array)`);
    continue;
  }
  const code = nb.cells.filter((c) => c.cell_type === "code");
  const notRun = code.filter((c) => c.execution_count === null || c.execution_count === undefined);
  if (notRun.length) problems.push(`${name}: ${notRun.length} of ${code.length} code cells did not run`);
  const outputs = code.flatMap((c) => c.outputs ?? []);
  if (outputs.length === 0) problems.push(`${name}: no outputs at all`);
  const errors = outputs.filter((o) => o.output_type === "error");
  if (errors.length) problems.push(`${name}: ${errors.length} error output(s), first: ${errors[0].ename}: ${errors[0].evalue}`);
  const rich = outputs.filter((o) => o.output_type === "display_data");
  if (rich.length === 0) problems.push(`${name}: no rich output (display_data)`);
  const bare = rich.filter((o) => !("text/plain" in (o.data ?? {})));
  if (bare.length) problems.push(`${name}: ${bare.length} rich output(s) without a text/plain fallback`);
  if (!problems.some((p) => p.startsWith(`${name}:`))) console.log(`ok  ${name}: ${code.length} cells run, ${outputs.length} outputs (${rich.length} rich)`);
}
if (problems.length) {
  for (const p of problems) console.error(`FAIL ${p}`);
  process.exit(1);
}
