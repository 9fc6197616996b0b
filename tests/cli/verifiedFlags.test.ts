/**
 * `s3gym run --pathways verified` flags: --broad-batch and --verifier-model are checked before any
 * call (exit 2, naming the flag), only accepted with the verified pathway, and recorded in the
 * verified runs' manifests only; a resume under another schedule is refused.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: {}, ...io }), io);
  return { code, out: out.join(""), err: err.join("") };
}

const base = ["--models", "builtin:learner", "--games", "snake", "--explore-episodes", "4", "--checkpoint-every", "2", "--eval-episodes", "1", "--max-steps", "4", "--progress", "off"];

describe("verified flags", () => {
  it("are refused without --pathways verified, with a bad number, or with an unknown verifier model", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3vf-"));
    const cases: [string[], RegExp][] = [
      [["--pathways", "memory", "--broad-batch", "3"], /--broad-batch and --verifier-model are only used with --pathways verified/],
      [["--pathways", "verified", "--broad-batch", "0"], /--broad-batch must be at least 1/],
      [["--pathways", "verified", "--verifier-model", "nosuch:thing"], /--verifier-model: /],
      [["--pathways", "verified", "--verifier-model", " "], /--verifier-model is empty/],
    ];
    for (const [flags, why] of cases) {
      const r = await run([...base, ...flags, "--data", data]);
      expect(r.code, flags.join(" ")).toBe(2);
      expect(r.err).toMatch(why);
    }
    expect(readdirSync(data)).toEqual([]);
  });

  it("are recorded in the verified run's protocol only, and a resume under another broad batch is refused", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3vf-"));
    expect((await run([...base, "--pathways", "verified,memory", "--broad-batch", "2", "--verifier-model", "builtin:heuristic", "--data", data])).code).toBe(0);
    const manifests = readdirSync(join(data, "runs")).map((r) => JSON.parse(readFileSync(join(data, "runs", r, "manifest.json"), "utf8")));
    const byPathway = Object.fromEntries(manifests.map((m) => [m.pathway, m.config.protocol.verified]));
    expect(byPathway).toEqual({ verified: { broad_batch: 2, verifier_model: "builtin:heuristic" }, memory: undefined });
    const again = await run([...base, "--pathways", "verified", "--broad-batch", "3", "--verifier-model", "builtin:heuristic", "--data", data]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/different protocol \(verified: \{"broad_batch":2,"verifier_model":"builtin:heuristic"\} -> \{"broad_batch":3/);
  }, 60_000);
});
