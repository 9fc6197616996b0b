/**
 * A pathway with a flag of its own is its module plus its registration: the `echo` pathway below
 * (defined and registered in this file only, nowhere in src/) declares one option row, and the
 * flag is then parsed by `s3gym run` (with its range, its default, and only beside `--pathways
 * echo`), listed by `--help`, held by a job file under the pathway's name and offered by the study
 * file's schema as an `echo:` block, with no other source file knowing it exists.
 *
 * The CLI modules are imported after the registration (they derive their flags, usage and schemas
 * from the registry when they load), as they would be for a pathway listed in REGISTERED.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerPathway } from "../../src/pathways/registry.js";
import { definePathway, NO_EXPERIENCE } from "../../src/pathways/types.js";
import type { OptionTable } from "../../src/util/options.js";

interface EchoSettings {
  /** How loud the toy is: it changes nothing, it only has to reach the run's settings. */
  level: number;
}

const ECHO_OPTIONS: OptionTable<EchoSettings> = {
  level: { name: "echo-level", kind: { type: "int", range: { min: 0, max: 9 } }, default: 2, about: "how loud the echo is" },
};

registerPathway(
  definePathway<{ consolidated: number }>({
    name: "echo",
    judged: false,
    protocolLoop: true,
    inDefaultMatrix: false,
    options: ECHO_OPTIONS,
    files: [],
    create: () => ({ consolidated: 0 }),
    consolidated: (s) => s.consolidated,
    consolidate: async (_host, _s, x) => ({ consolidated: x }),
    snapshot: () => NO_EXPERIENCE,
    rebuild: (_logs, k) => ({ consolidated: k }),
  }),
);

const { runCommand, runSettingsFromArgv } = await import("../../src/cli/run/run.js");
const { readJobFile } = await import("../../src/cli/run/jobFile.js");
const { jobFileText } = await import("../../src/training/loopJob.js");
const { studyJsonSchema } = await import("../../src/cli/study/studySchema.js");

const base = (data: string) => ["--models", "builtin:random", "--games", "snake", "--data", data];
const own = (job: object): unknown => (job as Record<string, unknown>).echo;

describe("a pathway with its own flag, defined and registered in a test file", () => {
  it("has its flag parsed by s3gym run: the value given, its default, its range, and only with the pathway", () => {
    const data = mkdtempSync(join(tmpdir(), "s3echo-"));
    expect(own(runSettingsFromArgv([...base(data), "--pathways", "echo", "--echo-level", "7"]))).toEqual({ level: 7 });
    expect(own(runSettingsFromArgv([...base(data), "--pathways", "none,echo"]))).toEqual({ level: 2 });
    expect(own(runSettingsFromArgv([...base(data), "--pathways", "none"]))).toBeNull();
    expect(() => runSettingsFromArgv([...base(data), "--pathways", "echo", "--echo-level", "10"])).toThrow("--echo-level must be at most 9 (range 0..9), got 10");
    expect(() => runSettingsFromArgv([...base(data), "--pathways", "none", "--echo-level", "3"])).toThrow("--echo-level is only used with --pathways echo (add 'echo' to --pathways, or drop it)");
    // The built-in pathway's flags are unchanged beside it.
    expect(() => runSettingsFromArgv([...base(data), "--pathways", "echo", "--broad-batch", "3"])).toThrow("--broad-batch and --verifier-model are only used with --pathways verified");
  });

  it("is listed by s3gym run --help", async () => {
    const help = (await runCommand(["--help"]).catch((e: unknown) => e)) as Error;
    expect(help.name).toBe("HelpRequested");
    expect(help.message).toContain("\n  [--echo-level 2]: --pathways echo only\n");
    expect(help.message).toContain("\n  [--broad-batch 5] [--verifier-model M]: --pathways verified only\n");
  });

  it("is held by a job file under the pathway's name, round-tripping to the flags' settings and checked by its row", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3echo-"));
    const settings = runSettingsFromArgv([...base(join(dir, "data")), "--pathways", "echo", "--echo-level", "4"]);
    const file = join(dir, "job.json");
    writeFileSync(file, jobFileText({ name: "echo", command: "run", settings } as Parameters<typeof jobFileText>[0]));
    expect(readJobFile(file, "run")).toEqual(settings);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, jobFileText({ name: "echo", command: "run", settings: { ...settings, echo: { level: 12 } } } as Parameters<typeof jobFileText>[0]));
    expect(() => readJobFile(bad, "run")).toThrow(/settings\.echo\.level/);
    const missing = join(dir, "missing.json");
    writeFileSync(missing, jobFileText({ name: "echo", command: "run", settings: { ...settings, echo: null } } as Parameters<typeof jobFileText>[0]));
    expect(() => readJobFile(missing, "run")).toThrow("settings.echo is null but the pathways include echo (give level)");
  });

  it("is a block of the study file: in its JSON Schema, and a study's value reaches the run as the flag would", () => {
    const schema = studyJsonSchema() as { properties: Record<string, { properties?: Record<string, { maximum?: number; description?: string }> }> };
    expect(schema.properties.echo?.properties?.["echo-level"]).toMatchObject({ maximum: 9, description: "how loud the echo is (--echo-level)" });
    expect(schema.properties.verified?.properties?.["broad-batch"]).toMatchObject({ maximum: 10_000 });
    const dir = mkdtempSync(join(tmpdir(), "s3echo-"));
    const study = join(dir, "s3gym.yaml");
    writeFileSync(study, "models: [builtin:random]\ngames: [snake]\npathways: [echo]\necho:\n  echo-level: 5\n");
    const fromStudy = runSettingsFromArgv([study]);
    expect(own(fromStudy)).toEqual({ level: 5 });
    expect(own(runSettingsFromArgv([...base(fromStudy.data), "--pathways", "none,echo", "--echo-level", "5"]))).toEqual(own(fromStudy));
  });
});
