/**
 * Data written by the kit before schema versions (main at b999829, tests/fixtures/data-v0; see
 * tests/fixtures/README.md) still reads, reports and resumes: every line validates against today's
 * schema, `s3gym report` writes the very table bytes that version wrote, and an interrupted run of
 * it resumes to completion, keeping its old lines as they were.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { reportCommand } from "../../src/cli/report.js";
import { runCommand } from "../../src/cli/run.js";
import { readJsonFile, readRunDir, readRunFile } from "../../src/logs/reader.js";
import { manifestPath, runFile, runsDir } from "../../src/logs/runDir.js";
import { RUN_FILES, RunManifest, SCHEMA_VERSION } from "../../src/logs/schema.js";
import { loadRunLogs } from "../../src/runner/replay.js";
import { manifestProtocol, settingsFromRecord } from "../../src/runner/protocolRecord.js";

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "data-v0");
const TABLES = join(import.meta.dirname, "..", "fixtures", "data-v0-report", "tables");
const RUN_FLAGS = ["--models", "builtin:heuristic", "--games", "nullify,trust", "--pathways", "none,history,memory", "--explore-episodes", "3", "--checkpoint-every", "3", "--eval-episodes", "1", "--max-steps", "5", "--progress", "off"];

const runs = readdirSync(runsDir(FIXTURE)).sort();

describe("data written before schema versions (version 0)", () => {
  it("has seven runs, none with a schema_version", () => {
    expect(runs).toHaveLength(7);
    for (const r of runs) expect(readJsonFile(manifestPath(join(runsDir(FIXTURE), r)), RunManifest).schema_version).toBeUndefined();
    expect(SCHEMA_VERSION).toBeGreaterThan(0);
  });

  it("reads: every line of every file validates, nothing is torn, the protocol maps back to settings", async () => {
    for (const r of runs) {
      const dir = join(runsDir(FIXTURE), r);
      let lines = 0;
      await readRunDir(dir, { step: () => void lines++ });
      expect(lines).toBeGreaterThan(0);
      for (const kind of Object.keys(RUN_FILES) as (keyof typeof RUN_FILES)[]) expect(readRunFile(runFile(dir, kind), RUN_FILES[kind].schema).torn).toBe(false);
      const logs = loadRunLogs(dir);
      const settings = settingsFromRecord(manifestProtocol(logs.manifest));
      expect(settings.maxSteps).toBe(5);
      expect(settings.evalEpisodes).toBe(1);
      // Fields version 0 wrote without declaring them are typed now.
      if (logs.manifest.pathway !== "training") expect(logs.episodes.every((e) => typeof e.end_observation === "string")).toBe(true);
      if (logs.manifest.pathway === "history") expect(logs.steps.some((s) => Array.isArray(s.history_keep))).toBe(true);
      if (logs.manifest.pathway === "memory") expect(logs.steps.every((s) => typeof s.memory_version === "number")).toBe(true);
    }
  });

  it("reports: the tables are byte-identical to what version 0 wrote from the same data", async () => {
    const out = mkdtempSync(join(tmpdir(), "s3gym-v0-report-"));
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const log = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      expect(await reportCommand(["--data", FIXTURE, "--out", out, "--bootstrap", "200"])).toBe(0);
    } finally {
      err.mockRestore();
      log.mockRestore();
    }
    const want = readdirSync(TABLES).sort();
    expect(readdirSync(join(out, "tables")).sort()).toEqual(want);
    for (const f of want) expect(readFileSync(join(out, "tables", f), "utf8"), f).toBe(readFileSync(join(TABLES, f), "utf8"));
  });

  it("resumes: an interrupted version-0 run completes, its earlier lines kept as written", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3gym-v0-resume-"));
    cpSync(FIXTURE, data, { recursive: true });
    const dir = join(runsDir(data), "trust__memory__builtin-heuristic-f585ac8e__seed0");
    // Interrupt it before checkpoint 3: cut the checkpoint-3 evaluation (its episode, steps, checkpoint record).
    const cut = (kind: "steps" | "episodes" | "checkpoints") => {
      const path = runFile(dir, kind);
      const all = readFileSync(path, "utf8").split("\n").filter(Boolean);
      const kept = all.filter((l) => (JSON.parse(l) as { checkpoint: number | null }).checkpoint !== 3);
      writeFileSync(path, kept.map((l) => `${l}\n`).join(""));
      return { kept, removed: all.length - kept.length };
    };
    const before = { steps: cut("steps"), episodes: cut("episodes"), checkpoints: cut("checkpoints") };
    expect(before.episodes.removed).toBe(1);
    expect(before.checkpoints.removed).toBe(1);
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    let code: number;
    try {
      // Version 0 read replies by the literal contract (parse_rule was not recorded yet): resuming it
      // under that rule is the same command plus --strict-contract (without it the clash is refused).
      code = await runCommand([...RUN_FLAGS, "--strict-contract", "--data", data]);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(code).toBe(0);
    const m = readJsonFile(manifestPath(dir), RunManifest);
    expect(m.status).toBe("complete");
    expect(m.schema_version).toBe(SCHEMA_VERSION);
    expect(m.invocations).toBe(2);
    for (const kind of ["steps", "episodes", "checkpoints"] as const) {
      const now = readFileSync(runFile(dir, kind), "utf8").split("\n").filter(Boolean);
      // The old lines come first, unchanged; the checkpoint-3 evaluation follows once.
      expect(now.slice(0, before[kind].kept.length)).toEqual(before[kind].kept);
      expect(now.length).toBeGreaterThan(before[kind].kept.length);
      expect(now.slice(before[kind].kept.length).every((l) => (JSON.parse(l) as { checkpoint: number | null }).checkpoint === 3)).toBe(true);
    }
    const keys = readRunFile(runFile(dir, "steps"), RUN_FILES.steps.schema).lines.map((l) => `${l.value.phase}|${l.value.checkpoint}|${l.value.episode}|${l.value.step}`);
    expect(new Set(keys).size).toBe(keys.length);
    // The memory versions were reused, not asked for again: no summary call in this invocation.
    const calls = readRunFile(runFile(dir, "calls"), RUN_FILES.calls.schema).lines.map((l) => l.value);
    expect(calls.filter((c) => c.purpose === "summary")).toHaveLength(3);
  });
});
