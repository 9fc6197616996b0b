/**
 * "A reader learns every logged field from src/logs/schema.ts alone": every field the kit writes, in
 * every file of every pathway and of a training run, is declared by its schema (the schemas allow
 * extras for other tools' data, so only this test notices an undeclared field).
 */
import { mkdtempSync, readdirSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { runCommand } from "../../src/cli/run/run.js";
import { manifestPath, runFile, runsDir } from "../../src/logs/runDir.js";
import { RUN_FILES, RunManifest } from "../../src/logs/schema.js";

/** Paths of `value` (objects only; arrays by their elements, records by `*`) that `schema` does not declare. */
function undeclared(schema: z.ZodType, value: unknown, path: string): string[] {
  let s: z.ZodType = schema;
  // Unwrap optional / nullable.
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  if (value === null || value === undefined) return [];
  if (s instanceof z.ZodObject && typeof value === "object" && !Array.isArray(value)) {
    const shape = s.shape as Record<string, z.ZodType>;
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => (k in shape ? undeclared(shape[k]!, v, `${path}.${k}`) : [`${path}.${k}`]));
  }
  if (s instanceof z.ZodArray && Array.isArray(value)) return value.flatMap((v) => undeclared(s.element as z.ZodType, v, `${path}[]`));
  return [];
}

describe("every written field is declared in src/logs/schema.ts", () => {
  it("for none, history, memory, verified and a training run", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3gym-schema-"));
    const quiet = [vi.spyOn(process.stdout, "write").mockImplementation(() => true), vi.spyOn(process.stderr, "write").mockImplementation(() => true)];
    try {
      const common = ["--games", "trust", "--eval-episodes", "1", "--max-steps", "4", "--data", data, "--progress", "off"];
      expect(await runCommand(["--models", "builtin:heuristic", "--pathways", "none,history,memory,verified", "--explore-episodes", "3", "--checkpoint-every", "3", ...common])).toBe(0);
      // The learner's verdicts carry facts (chess vectors), so the fact records are checked too.
      expect(
        await runCommand([
          "--models",
          "builtin:learner",
          "--pathways",
          "verified",
          "--explore-episodes",
          "3",
          "--checkpoint-every",
          "3",
          "--broad-batch",
          "2",
          ...common.map((a) => (a === "trust" ? "chess" : a)),
        ]),
      ).toBe(0);
      expect(await runCommand(["--pathways", "training", "--checkpoints", "builtin:random,builtin:heuristic", "--label", "ladder", ...common])).toBe(0);
    } finally {
      for (const q of quiet) q.mockRestore();
    }
    const missing = new Set<string>();
    const runs = readdirSync(runsDir(data));
    expect(runs).toHaveLength(6);
    for (const r of runs) {
      const dir = join(runsDir(data), r);
      for (const p of undeclared(RunManifest, JSON.parse(readFileSync(manifestPath(dir), "utf8")), "manifest")) missing.add(p);
      for (const [kind, f] of Object.entries(RUN_FILES)) {
        const path = runFile(dir, kind as keyof typeof RUN_FILES);
        if (!existsSync(path)) continue;
        for (const line of readFileSync(path, "utf8").split("\n").filter(Boolean)) for (const p of undeclared(f.schema, JSON.parse(line), kind)) missing.add(p);
      }
    }
    expect([...missing].sort()).toEqual([]);
  });

  it("the check itself finds an undeclared field", () => {
    expect(undeclared(RUN_FILES.checkpoints.schema, { checkpoint: 0, surprise: 1 }, "checkpoints")).toEqual(["checkpoints.surprise"]);
    expect(undeclared(RunManifest, { config: { invocation: { checkpoint_models: [{ checkpoint: 0, extra: true }] } } }, "m")).toEqual(["m.config.invocation.checkpoint_models[].extra"]);
  });
});
