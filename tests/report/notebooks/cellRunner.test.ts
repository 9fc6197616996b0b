/**
 * runCells and OutputCollector with a fake executor: which nbformat outputs a cell's writes,
 * displays, last value and failure become, and that execution stops at the first failing cell.
 */
import { describe, expect, it } from "vitest";
import { describeFailure, runCells, type CellExecutor, type OutputCollector } from "../../../src/report/notebooks/cellRunner.js";
import type { Notebook } from "../../../src/report/notebooks/nbformat.js";

function notebook(sources: string[]): Notebook {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: "markdown", id: "md", metadata: {}, source: ["# title"] },
      ...sources.map((s, i) => ({ cell_type: "code" as const, id: `c${i}`, metadata: {}, source: s, outputs: [{ stale: true }], execution_count: 99 })),
    ],
  };
}

/** A fake executor: each cell source is a script of commands the "kernel" performs on the collector. */
function fakeExecutor(get: () => OutputCollector): CellExecutor {
  return {
    async execute(src: string) {
      const c = get();
      for (const cmd of src.split(";")) {
        const [op, arg = ""] = cmd.split("=");
        if (op === "out") c.stream("stdout", arg);
        else if (op === "err") c.stream("stderr", arg);
        else if (op === "html") c.display({ data: { "text/html": arg } });
        else if (op === "png") c.display({ data: { "image/png": arg, "text/plain": "a figure\n" } });
        else if (op === "shown") c.display({ data: { "text/plain": arg }, transient: { display_id: "d1" } }, true);
        else if (op === "value") c.consoleLog(Number(arg));
        else if (op === "throw") {
          c.consoleError(new RangeError(arg));
          return false;
        } else if (op === "diag") {
          c.consoleError("%s%d:%d - %s", "", 1, 7, arg);
          c.consoleError("%s%d:%d - %s", "", 2, 1, "second");
          return false;
        } else if (op === "reject") throw new Error(arg);
      }
      return true;
    },
  };
}

async function run(sources: string[]) {
  let current: OutputCollector | null = null;
  const started: string[] = [];
  return {
    ...(await runCells(
      notebook(sources),
      fakeExecutor(() => current!),
      {
        setCollector: (c) => (current = c),
        onCell: (n, of, id) => started.push(`${n}/${of} ${id}`),
      },
    )),
    started,
  };
}

describe("runCells", () => {
  it("records streams (merged per stream, split into lines), displays, and the last value", async () => {
    const { notebook: nb, failure, started } = await run(["out=a\n;out=b\nc;err=oops\n;html=<b>x</b>;value=42", "png=iVBOR"]);
    expect(failure).toBeNull();
    expect(started).toEqual(["1/2 c0", "2/2 c1"]);
    const [md, c0, c1] = nb.cells;
    expect(md!.outputs).toBeUndefined();
    expect(c0!.execution_count).toBe(1);
    expect(c0!.outputs).toEqual([
      { output_type: "stream", name: "stdout", text: ["a\n", "b\n", "c"] },
      { output_type: "stream", name: "stderr", text: ["oops\n"] },
      { output_type: "display_data", data: { "text/html": ["<b>x</b>"] }, metadata: {} },
      { output_type: "execute_result", data: { "text/plain": ["42"] }, metadata: {}, execution_count: 1 },
    ]);
    // Binary kinds stay one base64 string; text kinds become lines.
    expect(c1!.outputs).toEqual([{ output_type: "display_data", data: { "image/png": "iVBOR", "text/plain": ["a figure\n"] }, metadata: {} }]);
    expect(c1!.execution_count).toBe(2);
  });

  it("an updated display replaces its earlier output in place", async () => {
    let current: OutputCollector | null = null;
    const exec: CellExecutor = {
      async execute() {
        current!.display({ data: { "text/plain": "1/3" }, transient: { display_id: "p" } });
        current!.stream("stdout", "between\n");
        current!.display({ data: { "text/plain": "3/3" }, transient: { display_id: "p" } }, true);
        return true;
      },
    };
    const r = await runCells(notebook(["x"]), exec, { setCollector: (c) => (current = c) });
    expect(r.notebook.cells[1]!.outputs).toEqual([
      { output_type: "display_data", data: { "text/plain": ["3/3"] }, metadata: {} },
      { output_type: "stream", name: "stdout", text: ["between\n"] },
    ]);
  });

  it("stops at the first failing cell: an error output with name, value and traceback; later cells untouched", async () => {
    const { notebook: nb, failure } = await run(["out=ok\n", "out=before\n;throw=boom", "out=never"]);
    expect(failure).toMatchObject({ index: 2, id: "c1", ename: "RangeError", evalue: "boom" });
    expect(failure!.traceback[0]).toBe("RangeError: boom");
    const c1 = nb.cells[2]!;
    expect(c1.execution_count).toBe(2);
    expect(c1.outputs![0]).toEqual({ output_type: "stream", name: "stdout", text: ["before\n"] });
    expect(c1.outputs![1]).toMatchObject({ output_type: "error", ename: "RangeError", evalue: "boom" });
    // The cell after the failure is reset (no stale outputs from the committed file) and not run.
    expect(nb.cells[3]!.outputs).toEqual([]);
    expect(nb.cells[3]!.execution_count).toBeNull();
  });

  it("TypeScript diagnostics become one error listing every diagnostic", async () => {
    const { failure } = await run(["diag=Type 'number' is not assignable to type 'string'."]);
    expect(failure).toMatchObject({ ename: "TypeScriptError", evalue: "1:7 - Type 'number' is not assignable to type 'string'." });
    expect(failure!.traceback).toEqual(["1:7 - Type 'number' is not assignable to type 'string'.", "2:1 - second"]);
  });

  it("an executor that rejects is a failed cell, not a crash", async () => {
    const { failure } = await run(["reject=executor broke"]);
    expect(failure).toMatchObject({ index: 1, ename: "Error", evalue: "executor broke" });
  });
});

describe("describeFailure", () => {
  it("names a thrown non-Error value, and a failure with nothing reported", () => {
    expect(describeFailure([[{ code: 7 }]])).toMatchObject({ ename: "Thrown", evalue: "{ code: 7 }" });
    expect(describeFailure([])).toMatchObject({ ename: "CellFailed" });
  });
});
