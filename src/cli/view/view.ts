/**
 * `s3gym view --data DIR [--data DIR ...] [flags]`
 *
 * Builds the static viewer site from the step logs (src/report/viewer/build.ts): open
 * `<out>/index.html` from disk, or pass `--serve` to serve it on 127.0.0.1 (only that address; the
 * server answers GET and HEAD for files under `<out>` and nothing else, with the page's
 * Content-Security-Policy as a header). Exit codes: 0 done (or served until interrupted); 1 the data
 * could not be read; 2 bad arguments.
 */
import { terminalSafe } from "../../models/secrets.js";
import { spawn } from "node:child_process";
import { createReadStream, existsSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import { BOOTSTRAP_OPTIONS } from "../../analysis/stats/bootstrap.js";
import { buildViewer, chunkStagePath } from "../../report/viewer/build.js";
import { contentSecurityPolicy } from "../../report/viewer/html.js";
import { optionFlags, readOption, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { parseFlags, UsageError } from "../shared/args.js";
import { DATA_DIRS_OPTION } from "../shared/dataFlags.js";

/** Set in the re-run command (to the heap limit it runs under), so it builds instead of re-running. */
const CAPPED_ENV = "S3GYM_VIEW_HEAP_MB";

/**
 * One thread writes the runs by default: two (the second core) halve the time but hold two runs at
 * once, and the largest History runs need ~250 MB of heap each (docs/viewer.md, "Scale").
 */
const DEFAULT_WORKERS = 1;
/** The build thread's heap limit (and each run worker's), measured: see docs/viewer.md "Scale". */
const DEFAULT_HEAP_MB = 300;

/**
 * view's own rows (where the site goes, its server, and the build's threads and heap; `--data` is
 * DATA_DIRS_OPTION, the bootstrap's rows BOOTSTRAP_OPTIONS): each value is read by its row.
 */
const VIEW_SITE_OPTIONS: OptionTable<{ out: string; serve: boolean; port: number; workers: number; heapMb: number }> = {
  out: { name: "out", kind: { type: "text", shown: "DIR", parse: (v: string) => v }, default: "s3gym-view", help: "where the site is written (default ./s3gym-view): index.html and chunks/" },
  serve: { name: "serve", kind: { type: "switch", on: true }, default: false, help: "serve the site on http://127.0.0.1:PORT/ until interrupted (Ctrl-C)" },
  port: { name: "port", kind: { type: "int", range: { min: 0, max: 65_535 } }, default: 8765, help: "the port for --serve (default 8765; 0 picks a free one)" },
  workers: {
    name: "workers",
    kind: { type: "int", range: { min: 1, max: 64 } },
    arg: "N",
    default: DEFAULT_WORKERS,
    help: `threads writing runs in parallel (default ${DEFAULT_WORKERS}; 2 uses a second core, with more memory)`,
  },
  heapMb: {
    name: "heap-mb",
    kind: { type: "int", range: { min: 32, max: 65_536, why: "a view worker's heap, in megabytes" } },
    arg: "M",
    default: DEFAULT_HEAP_MB,
    help: `the command's heap limit in MB (V8's old generation), and each worker's (default ${DEFAULT_HEAP_MB}; raise it if a run needs more)`,
  },
};

/** Every row, in the order `--help` lists them. */
const ROWS: Option<unknown>[] = [
  DATA_DIRS_OPTION,
  VIEW_SITE_OPTIONS.out,
  VIEW_SITE_OPTIONS.serve,
  VIEW_SITE_OPTIONS.port,
  BOOTSTRAP_OPTIONS.bootstrap,
  BOOTSTRAP_OPTIONS.seed,
  VIEW_SITE_OPTIONS.workers,
  VIEW_SITE_OPTIONS.heapMb,
];

export const VIEW_USAGE = [`s3gym view ${usageToken(DATA_DIRS_OPTION)} [--data DIR ...] [flags]`, ...usageLines(ROWS)].join("\n");

const FLAGS = optionFlags(ROWS);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

/** The file under `root` a request path names, or null (outside the root, hidden, not a file). */
export function resolveRequest(root: string, urlPath: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(urlPath.split("?")[0] ?? "/");
  } catch {
    return null;
  }
  if (path.includes("\0") || path.split("/").some((part) => part === ".." || part.startsWith("."))) return null;
  const base = resolve(root);
  const file = resolve(base, "." + (path.endsWith("/") ? path + "index.html" : path));
  if (file !== base && !file.startsWith(base + sep)) return null;
  if (!(extname(file) in TYPES) || !existsSync(file) || !statSync(file).isFile()) return null;
  return file;
}

/** Serves the site in `root` on 127.0.0.1:`port` (0: any free port). Resolves once listening. */
export function serveSite(root: string, port: number): Promise<{ server: Server; url: string }> {
  const csp = contentSecurityPolicy();
  const server = createServer((req, res) => {
    const headers = { "Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...headers, Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end("method not allowed\n");
      return;
    }
    const file = resolveRequest(root, req.url ?? "/");
    if (file === null) {
      res.writeHead(404, { ...headers, "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    res.writeHead(200, { ...headers, "Content-Type": TYPES[extname(file)] as string });
    if (req.method === "HEAD") res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const addr = server.address();
      const actual = typeof addr === "object" && addr !== null ? addr.port : port;
      resolvePromise({ server, url: `http://127.0.0.1:${actual}/` });
    });
  });
}

export async function viewCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, VIEW_USAGE);
  const o = VIEW_SITE_OPTIONS;
  const read = <T>(row: Option<T>): T => readOption(row, values[row.name]) as T;
  const data = read(DATA_DIRS_OPTION);
  const out = read(o.out);
  const B = read(BOOTSTRAP_OPTIONS.bootstrap);
  const seed = read(BOOTSTRAP_OPTIONS.seed);
  const port = read(o.port);
  const serve = read(o.serve);
  if (values.port !== undefined && !serve) throw new UsageError("--port needs --serve");
  const workers = read(o.workers);
  const heapMb = read(o.heapMb);

  // The heap limit is set on this process's own V8 (a re-run of the command under
  // --max-old-space-size): measured under 500 MB on the full reproduction, where the same limit on a
  // worker thread was not (docs/viewer.md, "Scale"). Not from the TypeScript source (tests).
  if (process.env[CAPPED_ENV] !== String(heapMb) && !import.meta.url.endsWith(".ts") && process.argv[1] !== undefined) {
    return await new Promise<number>((done) => {
      // An IPC channel the child watches: when this process dies (even by kill -9) the channel
      // closes and the child stops, so no build is left writing behind a dead command.
      const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, ...process.execArgv, process.argv[1] as string, ...process.argv.slice(2)], {
        stdio: ["inherit", "inherit", "inherit", "ipc"],
        env: { ...process.env, [CAPPED_ENV]: String(heapMb) },
      });
      // Ctrl-C reaches the child too (same process group); a signal sent to this process alone
      // (kill PID) is passed on, and this process exits once the child has.
      const forward = (signal: NodeJS.Signals): void => {
        child.kill(signal);
      };
      process.on("SIGINT", forward);
      process.on("SIGTERM", forward);
      process.on("SIGHUP", forward);
      child.on("exit", (code, signal) => {
        process.off("SIGINT", forward);
        process.off("SIGTERM", forward);
        process.off("SIGHUP", forward);
        done(code ?? (signal ? 1 : 0));
      });
    });
  }
  // The child of the re-run above (or the command run directly): stop when the parent is gone,
  // removing this build's unfinished folder. A signal kills it at once (the default): the previous
  // site stays whole (build.ts swaps the new one in at the end) and the next build removes the folder
  // a killed build left.
  const stage = chunkStagePath(out);
  const onDisconnect = (): void => {
    try {
      rmSync(stage, { recursive: true, force: true });
    } finally {
      process.exit(1);
    }
  };
  // Only the re-run above is that child (its parent set CAPPED_ENV and opened the channel): a process
  // that merely has an IPC channel of its own (a test runner's worker calling viewCommand) must never
  // be disconnected from its parent or exit with it.
  const isRerun = process.send !== undefined && process.env[CAPPED_ENV] === String(heapMb);
  if (isRerun) {
    process.on("disconnect", onDisconnect);
    // The parent may have died while this process was starting, before the listener was there.
    if (!process.connected) onDisconnect();
  }
  try {
    return await buildAndServe();
  } finally {
    // Done: the channel no longer holds this process (the parent exits with it).
    if (isRerun) {
      process.off("disconnect", onDisconnect);
      if (process.connected) process.disconnect();
    }
  }

  async function buildAndServe(): Promise<number> {
    const t0 = performance.now();
    let summary;
    try {
      summary = await buildViewer({
        dataDirs: data,
        outDir: out,
        B,
        seed,
        workers,
        heapMb,
        onRun: (done, total) => {
          if (process.stderr.isTTY) process.stderr.write(`\rs3gym view: ${done}/${total} runs`);
        },
      });
    } catch (e) {
      if (process.stderr.isTTY) process.stderr.write("\n");
      // Thrown whatever it is: src/cli/main.ts prints it and exits 1.
      throw e;
    }

    if (process.stderr.isTTY) process.stderr.write("\n");
    for (const w of summary.warnings.slice(0, 10)) process.stderr.write(terminalSafe(`warning: ${w}\n`));
    if (summary.warnings.length > 10) process.stderr.write(terminalSafe(`warning: ... and ${summary.warnings.length - 10} more (listed on the overview page)\n`));
    if (summary.runs === 0) {
      process.stderr.write(terminalSafe(`s3gym view: no runs found in ${data.join(", ")}\n`));
      return 1;
    }
    const index = join(resolve(out), "index.html");
    process.stdout.write(
      `s3gym view: ${summary.runs} runs, ${summary.episodes} episodes, ${summary.steps} steps -> ${summary.chunks} chunks, ` +
        `${(summary.bytes / 1024 / 1024).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    if (!serve) {
      process.stdout.write(`open ${index}\n`);
      return 0;
    }
    const { server, url } = await serveSite(out, port);
    process.stdout.write(`serving ${resolve(out)} on ${url} (Ctrl-C to stop)\n`);
    await new Promise<void>((done) => {
      const stop = (): void => {
        server.close(() => done());
        // A browser keeps idle connections open; without this, Ctrl-C waits for their keep-alive timeout.
        server.closeAllConnections();
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    return 0;
  }
}
