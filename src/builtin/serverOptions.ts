/**
 * The rows of `s3gym serve`: where the test server listens, how it answers (its policy and latency)
 * and which faults it injects (server.ts). Each value is read, and refused, by its row; a refusal is
 * a UsageError naming the flag.
 */
import { TEXT_POLICY_NAMES } from "../games/policies.js";
import { DEFAULT_CACHE_TOKENS, PREFIX_BLOCK_TOKENS } from "../models/cache/prefixCache.js";
import { parseLearnerName } from "../models/modelSpec.js";
import { UsageError } from "../util/errors.js";
import type { OptionTable } from "../util/options.js";
import { FAULT_KINDS, type FaultKind } from "./server.js";

/** An integer row in min..max, read in serve's words. */
function intIn(name: string, min: number, max: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (v.trim() === "" || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer in ${min}..${max}, got '${v}'`);
    return n;
  };
}

/** `--policy`: a text policy or a learner name (`learner[?judge=x]`). */
function policyOf(policy: string): string {
  if ((TEXT_POLICY_NAMES as readonly string[]).includes(policy)) return policy;
  let learner;
  try {
    learner = parseLearnerName(policy);
  } catch (e) {
    throw new UsageError(`--policy: ${(e as Error).message}`);
  }
  if (!learner) throw new UsageError(`--policy must be one of ${TEXT_POLICY_NAMES.join(", ")} or learner[?judge=x], got '${policy}'`);
  return policy;
}

/** `--fault-rate`: a share of requests in [0, 1]. */
function faultRateOf(rate: string): number {
  const n = Number(rate);
  if (rate.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--fault-rate must be a number in [0, 1], got '${rate}'`);
  return n;
}

/** `--faults`: a comma list of FAULT_KINDS. */
function faultsOf(list: string): FaultKind[] {
  const faults = list.split(",").map((f) => f.trim());
  for (const f of faults) {
    if (!(FAULT_KINDS as readonly string[]).includes(f)) throw new UsageError(`--faults must be a comma list of ${FAULT_KINDS.join(", ")}, got '${list}'`);
  }
  return faults as FaultKind[];
}

/** `--host`: not blank. */
function hostOf(host: string): string {
  if (host.trim() === "") throw new UsageError("--host must not be empty (e.g. 127.0.0.1)");
  return host;
}

export const SERVE_OPTIONS: OptionTable<{
  port: number;
  host: string;
  policy: string;
  latencyMs: number;
  faultRate: number;
  faults: FaultKind[];
  seed: number;
  prefixCache: boolean;
  cacheTokens: number;
}> = {
  port: { name: "port", kind: { type: "text", shown: "P", parse: intIn("port", 0, 65535) }, default: 8000, help: "the port to listen on (default 8000; 0 picks a free one)" },
  host: { name: "host", kind: { type: "text", shown: "H", parse: hostOf }, default: "127.0.0.1", help: "the address to listen on (default 127.0.0.1: this machine only)" },
  policy: {
    name: "policy",
    kind: { type: "text", shown: `${TEXT_POLICY_NAMES.join("|")}|learner[?judge=x]`, parse: policyOf },
    default: "heuristic",
    help: "how requests for a model the server does not name are answered (default heuristic)",
  },
  latencyMs: { name: "latency-ms", kind: { type: "text", shown: "L", parse: intIn("latency-ms", 0, 3_600_000) }, default: 0, help: "a delay before every answer and fault, in ms (default 0)" },
  faultRate: { name: "fault-rate", kind: { type: "text", shown: "p", parse: faultRateOf }, default: 0, help: "the share of requests answered by a fault (default 0)" },
  faults: { name: "faults", kind: { type: "text", shown: FAULT_KINDS.join(","), parse: faultsOf }, default: [...FAULT_KINDS], help: "the faults drawn from (default all)" },
  seed: { name: "seed", kind: { type: "text", shown: "S", parse: intIn("seed", 0, 2 ** 32 - 1) }, default: 0, help: "the seed of the fault draws (default 0)" },
  prefixCache: { name: "prefix-cache", kind: { type: "switch", on: true }, default: false, help: "simulate a server's prefix cache (cached tokens reported in usage)" },
  // At least one block of 16 tokens; at most 2^31 tokens (a real server's KV cache is far smaller).
  cacheTokens: {
    name: "cache-tokens",
    kind: { type: "text", shown: "N", parse: intIn("cache-tokens", PREFIX_BLOCK_TOKENS, 2 ** 31) },
    default: DEFAULT_CACHE_TOKENS,
    help: `with --prefix-cache: the simulated cache's size in tokens (default ${DEFAULT_CACHE_TOKENS})`,
  },
};
