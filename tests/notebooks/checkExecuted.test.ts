/** scripts/check-executed-notebooks.mjs (CI's independent check of executed notebooks) fails what it should. */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../analysis/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "check-executed-notebooks.mjs");
const NAMES = readdirSync(join(ROOT, "notebooks"))
  .filter((f) => f.endsWith(".ipynb"))
  .sort();

/** An executed-looking copy of every committed notebook: each code cell run, one rich output. */
function executedDir(edit?: (name: string, nb: { cells: Record<string, unknown>[] }) => void): string {
  const dir = tempDir("s3gym-checkexec-");
  mkdirSync(dir, { recursive: true });
  for (const name of NAMES) {
    const nb = JSON.parse(readFileSync(join(ROOT, "notebooks", name), "utf8")) as { cells: Record<string, unknown>[] };
    let n = 0;
    for (const c of nb.cells) {
      if (c.cell_type !== "code") continue;
      c.execution_count = ++n;
      c.outputs = [{ output_type: "display_data", data: { "text/html": ["<b>x</b>"], "text/plain": ["x"] }, metadata: {} }];
    }
    edit?.(name, nb);
    writeFileSync(join(dir, name), JSON.stringify(nb));
  }
  return dir;
}

const run = (dir: string) => spawnSync(process.execPath, [SCRIPT, dir], { encoding: "utf8" });

describe("check-executed-notebooks", () => {
  it("passes a complete set", () => {
    const r = run(executedDir());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("ok "))).toHaveLength(NAMES.length);
  });

  it("fails a missing copy, an unrun cell, an error output and a rich output without text/plain", () => {
    const dir = executedDir((name, nb) => {
      const code = nb.cells.filter((c) => c.cell_type === "code");
      if (name.startsWith("01")) code[1]!.execution_count = null;
      if (name.startsWith("02")) (code[0]!.outputs as object[]).push({ output_type: "error", ename: "TypeError", evalue: "boom", traceback: [] });
      if (name.startsWith("03")) code[0]!.outputs = [{ output_type: "display_data", data: { "text/html": ["<b>x</b>"] }, metadata: {} }];
    });
    writeFileSync(join(dir, NAMES[NAMES.length - 1]!), "{}");
    const gone = NAMES[0]!;
    rmSync(join(dir, gone));
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`FAIL ${gone}: no executed copy`);
    expect(r.stderr).toMatch(/FAIL 01_main_results\.ipynb: 1 of \d+ code cells did not run/);
    expect(r.stderr).toContain("FAIL 02_self_judging.ipynb: 1 error output(s), first: TypeError: boom");
    expect(r.stderr).toContain("FAIL 03_coupling.ipynb: 1 rich output(s) without a text/plain fallback");
    expect(r.stderr).toContain(`FAIL ${NAMES[NAMES.length - 1]}: not a notebook (no cells array)`);
  });
});
