/**
 * `s3gym serve --port P [--host H] [--policy random|heuristic|learner[?judge=x]] [--latency-ms L] [--fault-rate p]
 *  [--faults 429,500,timeout,garbage,empty] [--seed S]
 *  [--prefix-cache [--cache-tokens N]]`: runs the OpenAI-compatible test server until
 * SIGINT/SIGTERM. Bad values stop it before it starts, with one line naming the flag (exit 2).
 */
import { parseArgs } from "node:util";
import { HelpRequested, joinNegativeNumbers, UsageError } from "../shared/args.js";
import { TEXT_POLICY_NAMES } from "../../games/policies.js";
import { parseLearnerName } from "../../models/modelSpec.js";
import { DEFAULT_CACHE_TOKENS, PREFIX_BLOCK_TOKENS } from "../../models/cache/prefixCache.js";
import { FAULT_KINDS, startServer, type FaultKind, type ServerOptions } from "../../builtin/server.js";

export const SERVE_USAGE =
  "usage: s3gym serve [--port P] [--host H] [--policy random|heuristic|learner[?judge=x]] [--latency-ms L] [--fault-rate p] [--faults 429,500,timeout,garbage,empty] [--seed S] [--prefix-cache [--cache-tokens N]]";

export interface ServeIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Stops the server when aborted (tests); by default SIGINT/SIGTERM do. */
  signal?: AbortSignal;
}

const defaultIo: ServeIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

const SERVE_OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  policy: { type: "string" },
  "latency-ms": { type: "string" },
  "fault-rate": { type: "string" },
  faults: { type: "string" },
  seed: { type: "string" },
  "prefix-cache": { type: "boolean" },
  "cache-tokens": { type: "string" },
} as const;

function intFlag(name: string, v: string | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === "" || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer in ${min}..${max}, got '${v}'`);
  return n;
}

/** Parses serve's flags into server options; throws UsageError naming the flag. */
export function parseServeArgs(argv: string[]): ServerOptions & { port: number; host: string } {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: joinNegativeNumbers(argv, SERVE_OPTIONS),
      strict: true,
      allowPositionals: false,
      options: SERVE_OPTIONS,
    }));
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]}; ${SERVE_USAGE}`);
  }
  const str = (k: string): string | undefined => values[k] as string | undefined;
  const policy = str("policy") ?? "heuristic";
  if (!(TEXT_POLICY_NAMES as readonly string[]).includes(policy)) {
    let learner;
    try {
      learner = parseLearnerName(policy);
    } catch (e) {
      throw new UsageError(`--policy: ${(e as Error).message}`);
    }
    if (!learner) throw new UsageError(`--policy must be one of ${TEXT_POLICY_NAMES.join(", ")} or learner[?judge=x], got '${policy}'`);
  }
  const rate = str("fault-rate");
  const faultRate = rate === undefined ? 0 : Number(rate);
  if (rate !== undefined && (rate.trim() === "" || !Number.isFinite(faultRate) || faultRate < 0 || faultRate > 1)) {
    throw new UsageError(`--fault-rate must be a number in [0, 1], got '${rate}'`);
  }
  const faultList = str("faults");
  const faults = faultList === undefined ? [...FAULT_KINDS] : faultList.split(",").map((f) => f.trim());
  for (const f of faults) {
    if (!(FAULT_KINDS as readonly string[]).includes(f)) throw new UsageError(`--faults must be a comma list of ${FAULT_KINDS.join(", ")}, got '${faultList}'`);
  }
  const host = str("host") ?? "127.0.0.1";
  if (host.trim() === "") throw new UsageError("--host must not be empty (e.g. 127.0.0.1)");
  const prefixCache = values["prefix-cache"] === true;
  if (!prefixCache && str("cache-tokens") !== undefined) throw new UsageError("--cache-tokens is the size of the simulated prefix cache: add --prefix-cache, or drop it");
  // At least one block of 16 tokens; at most 2^31 tokens (a real server's KV cache is far smaller).
  const cacheTokens = prefixCache ? intFlag("cache-tokens", str("cache-tokens"), DEFAULT_CACHE_TOKENS, PREFIX_BLOCK_TOKENS, 2 ** 31) : undefined;
  return {
    ...(cacheTokens !== undefined ? { prefixCacheTokens: cacheTokens } : {}),
    port: intFlag("port", str("port"), 8000, 0, 65535),
    host,
    policy,
    latencyMs: intFlag("latency-ms", str("latency-ms"), 0, 0, 3_600_000),
    faultRate,
    faults: faults as FaultKind[],
    seed: intFlag("seed", str("seed"), 0, 0, 2 ** 32 - 1),
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
