/**
 * The Node notebook engine's worker: executes ONE notebook in this process with tslab's own
 * executor (no Python, no Jupyter, no ZeroMQ) and writes the executed copy as nbformat 4.5.
 *
 *   node dist/report/notebooks/worker.js <notebook.ipynb> <executed.ipynb>
 *
 * Runs with the notebook's folder as the working directory (tslab compiles cells with rootDir = cwd
 * and resolves `../dist/index.js` from there). The environment (S3GYM_DATA, S3GYM_OUT, ...) is the
 * parent's. Exit codes: 0 every cell ran; 1 a cell failed (the executed copy is still written, up
 * to and including the failing cell's error, and the error is printed to stderr); 2 the notebook
 * could not be read or tslab could not be loaded.
 *
 * One notebook per process: a notebook's globals, module cache, patched stdout and the process-wide
 * display hook never leak into the next one, and a runaway notebook can be killed on its own.
 * Lines starting with CELL_MARK on stderr tell the parent which cell is running (for its timeout
 * message); they are not shown.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, resolve } from "node:path";
import { CELL_MARK, runCells, type CellExecutor, type DisplayRequest, type OutputCollector } from "./cellRunner.js";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { parseNotebook, serializeNotebook } from "./nbformat.js";

/** The real stderr, kept before the cells' writes are captured. */
const rawStderr = process.stderr.write.bind(process.stderr);

interface TslabModules {
  createExecutor: (
    rootDir: string,
    convs: { node: unknown; browser: unknown; close(): void },
    console: { log(...a: unknown[]): void; error(...a: unknown[]): void },
  ) => CellExecutor & { close(): void };
  createConverter: (o: { isJS: boolean; isBrowser: boolean }) => { close(): void };
  jupyter: { lastWriteDisplayData: ((d: DisplayRequest, update?: boolean) => void) | null };
}

/**
 * tslab's executor, converter and display hook, from the kit's own node_modules: the same module
 * instances that the kit's display helpers and a cell's `import "tslab"` reach.
 */
function loadTslab(): TslabModules {
  const req = createRequire(import.meta.url);
  const ex = req("tslab/dist/executor") as { createExecutor: TslabModules["createExecutor"] };
  const conv = req("tslab/dist/converter") as { createConverter: TslabModules["createConverter"] };
  const jupyter = req("tslab/dist/jupyter") as TslabModules["jupyter"];
  return { createExecutor: ex.createExecutor, createConverter: conv.createConverter, jupyter };
}

async function main(argv: string[]): Promise<number> {
  const [src, dst] = argv;
  const say = (s: string): void => void rawStderr(s);
  if (!src || !dst) {
    say("usage: worker <notebook.ipynb> <executed.ipynb>\n");
    return 2;
  }
  const srcAbs = resolve(src);
  const dstAbs = resolve(dst);
  let nb;
  let tslab: TslabModules;
  try {
    nb = parseNotebook(readFileSync(srcAbs, "utf8"), srcAbs);
    process.chdir(dirname(srcAbs));
    tslab = loadTslab();
  } catch (e) {
    say(`${(e as Error).message}\n`);
    return 2;
  }
  let current: OutputCollector | null = null;
  const node = tslab.createConverter({ isJS: false, isBrowser: false });
  // The browser converter (a whole second TypeScript program, with the DOM's types) only for a
  // `%browser` cell: the kit's notebooks have none, and building it was ~7% of a notebook's CPU.
  let browser: { close(): void } | null = null;
  const convs = {
    node,
    get browser() {
      return (browser ??= tslab.createConverter({ isJS: false, isBrowser: true }));
    },
    close: () => (node.close(), browser?.close()),
  };
  const executor = tslab.createExecutor(process.cwd(), convs, { log: (...a) => current?.consoleLog(...a), error: (...a) => current?.consoleError(...a) });
  // Everything the cells write (console.log, libraries' banners) goes to the running cell, as tslab's
  // kernel does; output arriving after a cell ended goes to the last cell.
  const capture =
    (name: "stdout" | "stderr") =>
    (chunk: string | Uint8Array, enc?: unknown, cb?: unknown): boolean => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      current?.stream(name, text);
      const done = typeof enc === "function" ? enc : cb;
      if (typeof done === "function") (done as () => void)();
      return true;
    };
  process.stdout.write = capture("stdout") as typeof process.stdout.write;
  process.stderr.write = capture("stderr") as typeof process.stderr.write;
  tslab.jupyter.lastWriteDisplayData = (d, update) => current?.display(d, update === true);
  process.on("uncaughtException", (e) => current?.stream("stderr", `UncaughtException: ${(e as Error).stack ?? String(e)}\n`));
  process.on("unhandledRejection", (e) => current?.stream("stderr", `UnhandledPromiseRejection: ${(e as Error)?.stack ?? String(e)}\n`));

  const { notebook, failure } = await runCells(nb, executor, {
    setCollector: (c) => (current = c),
    onCell: (n, of, id) => say(`${CELL_MARK}${n}/${of}${id ? ` (id ${id})` : ""}\n`),
    settle: () => new Promise((r) => setImmediate(r)),
  });
  executor.close();
  // Atomic: a reader never sees half a notebook.
  writeFileAtomic(dstAbs, serializeNotebook(notebook), { durable: false });
  if (failure) {
    say(
      `${basename(srcAbs)}: cell ${failure.index + 1}${failure.id ? ` (id ${failure.id})` : ""} failed: ${failure.ename}: ${failure.evalue}\n` +
        failure.traceback
          .slice(0, 20)
          .map((l) => `  ${l}\n`)
          .join(""),
    );
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  // Exit explicitly: a notebook may leave handles open (TensorFlow.js, timers).
  (code) => process.exit(code),
  (e: unknown) => {
    rawStderr(`notebook worker: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(2);
  },
);
