#!/usr/bin/env node
// Strips outputs, execution counts and execution metadata from the committed notebooks, gives every
// cell a stable id (nbformat 4.5), and writes them the way Jupyter does (keys sorted, indent 1), so a
// notebook saved from Jupyter and stripped has no spurious diff. Executed copies live in
// figures/notebooks/ (gitignored), never in notebooks/.
//
//   node scripts/strip-notebooks.mjs [--check] [DIR]     (DIR defaults to the kit's notebooks/)
//
// `--check` changes nothing and exits 1 listing every notebook that would change: the test suite and
// CI run it so generated outputs never reach git.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const check = args.includes("--check");
const dirArg = args.find((a) => !a.startsWith("--"));
const dir = dirArg ? resolve(dirArg) : fileURLToPath(new URL("../notebooks/", import.meta.url));

/** nbformat 4.5: 1-64 characters of [a-zA-Z0-9-_]. */
const ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** Recursively sorts object keys (arrays keep their order), as nbformat's writer does. */
function sorted(v) {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted(v[k])]),
    );
  return v;
}

/** The stripped form of one notebook's text. Throws on text that is not a notebook. */
export function strip(text, name) {
  const nb = JSON.parse(text);
  if (!Array.isArray(nb.cells)) throw new Error(`${name}: not a notebook (no cells array)`);
  const stem = name
    .replace(/\.ipynb$/, "")
    .replace(/[^a-zA-Z0-9_-]/g, "-")
    .slice(0, 48);
  const seen = new Set();
  nb.cells.forEach((cell, i) => {
    let id = typeof cell.id === "string" && ID.test(cell.id) ? cell.id : `${stem}-${i}`;
    for (let k = 1; seen.has(id); k++) id = `${stem}-${i}-${k}`;
    seen.add(id);
    cell.id = id;
    cell.metadata = cell.metadata ?? {};
    delete cell.metadata.execution;
    delete cell.metadata.collapsed;
    delete cell.metadata.scrolled;
    if (cell.cell_type === "code") {
      cell.outputs = [];
      cell.execution_count = null;
    }
    if (typeof cell.source === "string") {
      const lines = cell.source.split("\n");
      cell.source = lines.map((l, j) => (j < lines.length - 1 ? `${l}\n` : l)).filter((l) => l !== "");
    }
  });
  // Kernel-reported details (versions) change with every execution: keep only what selects the kernel.
  const meta = nb.metadata ?? {};
  nb.metadata = { kernelspec: meta.kernelspec ?? { display_name: "TypeScript", language: "typescript", name: "tslab" } };
  if (meta.language_info) nb.metadata.language_info = { file_extension: ".ts", mimetype: "text/typescript", name: "typescript" };
  nb.nbformat = 4;
  nb.nbformat_minor = Math.max(5, nb.nbformat_minor ?? 5);
  return `${JSON.stringify(sorted(nb), null, 1)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dirty = [];
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith(".ipynb"))
    .sort()) {
    const path = join(dir, name);
    const before = readFileSync(path, "utf8");
    let after;
    try {
      after = strip(before, name);
    } catch (e) {
      console.error(`${path}: ${e instanceof SyntaxError ? `invalid JSON: ${e.message}` : e.message}`);
      process.exit(2);
    }
    if (after !== before) {
      dirty.push(name);
      if (!check) writeFileSync(path, after);
    }
  }
  if (check && dirty.length) {
    console.error(`notebooks with outputs, execution data or unstable ids (run 'npm run strip-notebooks'): ${dirty.join(", ")}`);
    process.exit(1);
  }
  if (!check) console.log(dirty.length ? `stripped: ${dirty.join(", ")}` : "notebooks already clean");
}
