/**
 * Runs a notebook's code cells one after another through an executor (tslab's in the Node engine)
 * and records what each cell produced as nbformat outputs:
 *
 * - `stream`: what the cell wrote to stdout / stderr (consecutive writes to one stream merge);
 * - `display_data`: a rich display (tslab's `display.*`, the kit's `show*` helpers), every MIME type kept;
 * - `execute_result`: the value of the cell's last expression, as text/plain;
 * - `error`: a failed cell's exception (name, message, stack) or its TypeScript diagnostics.
 *
 * Execution stops at the first failing cell (as nbclient does); the cells after it keep no outputs
 * and no execution count. Pure of I/O: the caller wires the executor and the capture hooks, so this
 * is testable with a fake executor.
 */
import { format, inspect } from "node:util";
import { diskBundle, sourceText, splitLines, type Notebook, type Output } from "./nbformat.js";

/** Prefix of the worker's stderr lines naming the cell it starts (the parent's timeout message uses them). */
export const CELL_MARK = "\u0001s3gym-cell ";

/** What executes one cell: resolves true when the cell ran without error. */
export interface CellExecutor {
  execute(source: string): Promise<boolean>;
}

/** A display request as tslab's display hook receives it. */
export interface DisplayRequest {
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  transient?: { display_id?: string };
}

/** The failure of a cell: where, and the error as recorded in the notebook. */
export interface CellFailure {
  index: number;
  id: string | null;
  ename: string;
  evalue: string;
  traceback: string[];
}

/**
 * Collects one cell's outputs. The engine routes the process' stdout/stderr writes to `stream`,
 * tslab's display hook to `display`, and the executor's console (last-expression value, errors,
 * diagnostics) to `consoleLog` / `consoleError`.
 */
export class OutputCollector {
  outputs: Output[] = [];
  private errors: unknown[][] = [];
  private displayIds = new Map<string, number>();

  constructor(private readonly executionCount: () => number) {}

  stream(name: "stdout" | "stderr", text: string): void {
    if (text === "") return;
    const last = this.outputs[this.outputs.length - 1];
    if (last?.output_type === "stream" && last.name === name) {
      last.text = splitLines(last.text.join("") + text);
    } else this.outputs.push({ output_type: "stream", name, text: splitLines(text) });
  }

  /** A display; `update` with a display id replaces that display's earlier output in place. */
  display(req: DisplayRequest, update = false): void {
    const out: Output = { output_type: "display_data", data: diskBundle(req.data), metadata: req.metadata ?? {} };
    const id = req.transient?.display_id;
    if (id !== undefined && update && this.displayIds.has(id)) {
      this.outputs[this.displayIds.get(id)!] = out;
      return;
    }
    if (id !== undefined) this.displayIds.set(id, this.outputs.length);
    this.outputs.push(out);
  }

  /** The executor prints the last expression's value through its console's `log`. */
  consoleLog(...args: unknown[]): void {
    const text = args.length === 1 && typeof args[0] !== "string" ? inspect(args[0], { depth: 4, breakLength: 100 }) : format(...args);
    this.outputs.push({ output_type: "execute_result", data: { "text/plain": splitLines(text) }, metadata: {}, execution_count: this.executionCount() });
  }

  /** The executor reports a thrown error, or a diagnostic (a printf-style line), through `error`. */
  consoleError(...args: unknown[]): void {
    this.errors.push(args);
  }

  /**
   * Ends the cell. A failed cell gets one `error` output (its exception, or all its diagnostics);
   * console errors of a cell that succeeded (a module cell's diagnostics) become stderr text.
   */
  finish(ok: boolean): Omit<CellFailure, "index" | "id"> | null {
    const errors = this.errors;
    this.errors = [];
    if (ok) {
      for (const e of errors) this.stream("stderr", `${format(...e)}\n`);
      return null;
    }
    const failure = describeFailure(errors);
    this.outputs.push({ output_type: "error", ...failure });
    return failure;
  }
}

/** An error output from what the executor reported (thrown values, or TypeScript diagnostics). */
export function describeFailure(errors: unknown[][]): Omit<CellFailure, "index" | "id"> {
  const thrown = errors.find((args) => args.length === 1 && typeof args[0] !== "string");
  if (thrown) {
    const e = thrown[0];
    if (e instanceof Error) {
      return { ename: e.name || "Error", evalue: e.message, traceback: (e.stack ?? `${e.name}: ${e.message}`).split("\n") };
    }
    return { ename: "Thrown", evalue: inspect(e), traceback: [`a non-Error value was thrown: ${inspect(e)}`] };
  }
  if (errors.length > 0) {
    // tslab prints each diagnostic as "%s%d:%d - %s" (file, line, column, message).
    const lines = errors.map((args) => format(...args));
    return { ename: "TypeScriptError", evalue: lines[0]!, traceback: lines };
  }
  return { ename: "CellFailed", evalue: "the cell failed and the executor reported no error", traceback: [] };
}

/** Hooks the engine gives `runCells`: the collector of the running cell is set before each cell. */
export interface CellHooks {
  /** Called with the collector that should receive the next cell's outputs. */
  setCollector(c: OutputCollector): void;
  /** Called before a cell runs (1-based number among the code cells, and the cell's id). */
  onCell?(n: number, of: number, id: string | null): void;
  /** Lets output written asynchronously by the cell land before the cell is closed. */
  settle?(): Promise<void>;
}

/**
 * Executes every code cell of `nb` in order, writing outputs and execution counts into a copy.
 * Returns the executed notebook and the first failure (null when every cell ran).
 */
export async function runCells(nb: Notebook, executor: CellExecutor, hooks: CellHooks): Promise<{ notebook: Notebook; failure: CellFailure | null }> {
  const out: Notebook = structuredClone(nb);
  const code = out.cells.map((c, i) => ({ c, i })).filter(({ c }) => c.cell_type === "code");
  let count = 0;
  for (const cell of out.cells) {
    if (cell.cell_type === "code") {
      cell.outputs = [];
      cell.execution_count = null;
    }
  }
  for (const [k, { c, i }] of code.entries()) {
    count++;
    const n = count;
    const collector = new OutputCollector(() => n);
    hooks.setCollector(collector);
    hooks.onCell?.(k + 1, code.length, c.id ?? null);
    let ok: boolean;
    try {
      ok = await executor.execute(sourceText(c.source));
    } catch (e) {
      collector.consoleError(e);
      ok = false;
    }
    await hooks.settle?.();
    const failure = collector.finish(ok);
    c.outputs = collector.outputs;
    c.execution_count = n;
    if (failure) return { notebook: out, failure: { index: i, id: c.id ?? null, ...failure } };
  }
  return { notebook: out, failure: null };
}
