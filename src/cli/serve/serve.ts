/**
 * `s3gym serve [flags]` (the rows: SERVE_OPTIONS, builtin/serverOptions.ts): runs the OpenAI-compatible test server until
 * SIGINT/SIGTERM. Bad values stop it before it starts, with one line naming the flag (exit 2).
 */
import { parseArgs } from "node:util";
import { HelpRequested, joinNegativeNumbers, UsageError } from "../shared/args.js";
import { startServer, type ServerOptions } from "../../builtin/server.js";
import { SERVE_OPTIONS } from "../../builtin/serverOptions.js";
import { optionFlags, optionRows, readOption, usageLines, type Option } from "../../util/options.js";

const ROWS: Option<unknown>[] = optionRows(SERVE_OPTIONS);

export const SERVE_USAGE = ["usage: s3gym serve [flags]", ...usageLines(ROWS)].join("\n");

export interface ServeIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Stops the server when aborted (tests); by default SIGINT/SIGTERM do. */
  signal?: AbortSignal;
}

const defaultIo: ServeIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

const FLAGS = optionFlags(ROWS);

/** Parses serve's flags into server options; throws UsageError naming the flag. */
export function parseServeArgs(argv: string[]): ServerOptions & { port: number; host: string } {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: joinNegativeNumbers(argv, FLAGS),
      strict: true,
      allowPositionals: false,
      options: FLAGS,
    }).values as Record<string, string | boolean | undefined>;
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]}; ${SERVE_USAGE}`);
  }
  const o = SERVE_OPTIONS;
  const read = <T>(row: Option<T>): T => readOption(row, values[row.name]) as T;
  const policy = read(o.policy);
  const faultRate = read(o.faultRate);
  const faults = read(o.faults);
  const host = read(o.host);
  const prefixCache = read(o.prefixCache);
  if (!prefixCache && values[o.cacheTokens.name] !== undefined) throw new UsageError("--cache-tokens is the size of the simulated prefix cache: add --prefix-cache, or drop it");
  const cacheTokens = prefixCache ? read(o.cacheTokens) : undefined;
  return {
    ...(cacheTokens !== undefined ? { prefixCacheTokens: cacheTokens } : {}),
    port: read(o.port),
    host,
    policy,
    latencyMs: read(o.latencyMs),
    faultRate,
    faults: [...faults],
    seed: read(o.seed),
  };
}

export async function serveCommand(argv: string[], io: ServeIo = defaultIo): Promise<number> {
  // A bad flag or --help is thrown: src/cli/main.ts alone maps them to output and exit codes.
  if (argv.includes("--help") || argv.includes("-h")) throw new HelpRequested(SERVE_USAGE);
  const options = parseServeArgs(argv);
  let server;
  try {
    server = await startServer(options);
  } catch (e) {
    // Said with the address and thrown: src/cli/main.ts prints it and exits 1.
    throw new Error(`cannot listen on ${options.host}:${options.port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
  const faults = options.faultRate ? `faults ${options.faults!.join(",")} at rate ${options.faultRate} (seed ${options.seed})` : "no faults";
  const cache = options.prefixCacheTokens !== undefined ? `, prefix cache of ${options.prefixCacheTokens} tokens` : "";
  io.out(`s3gym serve: listening on ${server.url} (policy ${options.policy}, latency ${options.latencyMs} ms, ${faults}${cache}); Ctrl-C stops it`);
  await new Promise<void>((resolve) => {
    if (io.signal) {
      if (io.signal.aborted) return resolve();
      io.signal.addEventListener("abort", () => resolve(), { once: true });
      return;
    }
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await server.close();
  io.out("s3gym serve: stopped");
  return 0;
}
