/**
 * The Node engine end to end with the real tslab executor (no Jupyter): a notebook in a temp
 * folder, its executed copy in nbformat 4.5 with stream / display_data / execute_result / error
 * outputs, the failing cell named in the rejection, and a notebook that never finishes timed out.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NOTEBOOK_ENGINES, executedProblems } from "../../../src/report/notebooks/engines.js";
import { tempDir } from "../../analysis/helpers.js";
import { writeTestNotebook } from "./data.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

interface Out {
  output_type: string;
  name?: string;
  text?: string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  execution_count?: number;
}
type Nb = { cells: { cell_type: string; execution_count?: number | null; outputs?: Out[] }[] };
const read = (p: string): Nb => JSON.parse(readFileSync(p, "utf8")) as Nb;

describe("the node notebook engine", () => {
  it("writes every output kind, stops at a TypeScript error and names the cell", async () => {
    const dir = tempDir("s3gym-nodeeng-");
    const out = join(dir, "out");
    mkdirSync(out);
    const nb = writeTestNotebook(dir, "t.ipynb", [
      `import * as tslab from "tslab";\nconst a: number = 2;\nconsole.log("hello", process.env.S3GYM_PROBE);\ntslab.display.html("<b>x</b>");\na * 21`,
      `await new Promise((r) => setTimeout(r, 5));\nconsole.error("warned");\nconst b: number = a + 1;`,
      `const c: string = b;`,
      `console.log("never");`,
    ]);
    const err = await NOTEBOOK_ENGINES.node.execute(ROOT, nb, out, { S3GYM_PROBE: "probe-value" }, 120).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/t\.ipynb failed \(node engine, exit 1\)/);
    expect(err?.message).toContain("cell 4 (id c3) failed: TypeScriptError");
    expect(err?.message).toContain("not assignable to type 'string'");

    const executed = read(join(out, "t.ipynb"));
    const [, c1, c2, c3, c4] = executed.cells;
    expect(c1!.execution_count).toBe(1);
    expect(c1!.outputs).toEqual([
      { output_type: "stream", name: "stdout", text: ["hello probe-value\n"] },
      { output_type: "display_data", data: { "text/html": ["<b>x</b>"] }, metadata: {} },
      { output_type: "execute_result", data: { "text/plain": ["42"] }, metadata: {}, execution_count: 1 },
    ]);
    expect(c2!.outputs).toEqual([{ output_type: "stream", name: "stderr", text: ["warned\n"] }]);
    expect(c3!.execution_count).toBe(3);
    expect(c3!.outputs).toHaveLength(1);
    expect(c3!.outputs![0]).toMatchObject({ output_type: "error", ename: "TypeScriptError" });
    expect(c3!.outputs![0]!.evalue).toContain("not assignable");
    expect(c4!.execution_count).toBeNull();
    expect(c4!.outputs).toEqual([]);
    expect(executedProblems(join(out, "t.ipynb"))).toEqual(["1 of 4 code cells did not run (first: c4)", "1 error output(s)"]);
    // Written the way Jupyter writes notebooks: sorted keys, indent 1.
    const text = readFileSync(join(out, "t.ipynb"), "utf8");
    expect(text.startsWith('{\n "cells": [\n  {\n   "cell_type": "markdown",')).toBe(true);
  }, 120_000);

  it("a thrown error keeps its name, message and stack", async () => {
    const dir = tempDir("s3gym-nodeeng-");
    const nb = writeTestNotebook(dir, "throws.ipynb", [`function deep(): never { throw new RangeError("boom at depth"); }\nawait Promise.resolve();\ndeep();`]);
    const err = await NOTEBOOK_ENGINES.node.execute(ROOT, nb, dir, {}, 120).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain("cell 2 (id c1) failed: RangeError: boom at depth");
    const o = read(join(dir, "throws.ipynb")).cells[1]!.outputs![0]!;
    expect(o).toMatchObject({ output_type: "error", ename: "RangeError", evalue: "boom at depth" });
    expect(o.traceback!.join("\n")).toContain("deep");
  }, 120_000);

  it("a notebook that never finishes is killed at the time limit, naming the running cell", async () => {
    const dir = tempDir("s3gym-nodeeng-");
    const nb = writeTestNotebook(dir, "hangs.ipynb", [`const x = 1;`, `await new Promise(() => {});`]);
    // 45 s: on a loaded machine the worker's start (TypeScript's compiler) alone can take 20 s.
    const err = await NOTEBOOK_ENGINES.node.execute(ROOT, nb, dir, {}, 45).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe("notebook hangs.ipynb timed out after 45 s, in cell 2/2 (id c2) (node engine)");
  }, 120_000);
});
