/**
 * The study file (src/cli/study/): it resolves to the same run settings as the flags it stands for
 * (one path), flags override it, its protocol keys are the PROTOCOL_SETTINGS rows, its paths are the
 * study folder's, the `none` control is added or its absence announced, the smoke profile, errors that
 * name field, value and fix (never a value under models:), the recorded study and its hash in every
 * manifest, `s3gym init`, and the folders a study gives the reading commands.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { initCommand } from "../../src/cli/study/init.js";
import { runCommand, runSettingsFromArgv } from "../../src/cli/run/run.js";
import { loadStudy, studyRecord } from "../../src/cli/study/loadStudy.js";
import { studyArgv } from "../../src/cli/study/studyArgv.js";
import { studyJsonSchema, STUDY_PROTOCOL_ROWS, StudyFile } from "../../src/cli/study/studySchema.js";
import { PROTOCOL_SETTINGS } from "../../src/runner/settings/protocolSettings.js";
import { UsageError } from "../../src/cli/shared/args.js";

function studyDir(yaml: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "s3gym-study-"));
  const file = join(dir, "s3gym.yaml");
  writeFileSync(file, yaml);
  return { dir, file };
}

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

const BASE = "models:\n  - builtin:random\n  - builtin:heuristic\ngames: [snake, minesweeper]\npathways: [none, history]\n";

describe("a study resolves to the flags' settings", () => {
  it("gives exactly the RunJobSettings of the equivalent command line, data resolved from the study's folder", () => {
    const { dir, file } = studyDir(
      `${BASE}protocol:\n  explore-episodes: 6\n  checkpoint-every: 2\n  context-tokens: 30000\n  max-new-tokens: 2000\n  strict-contract: true\ndata: logs\nviews: { names: [eval, id], view-episodes: 2 }\n`,
    );
    const fromStudy = runSettingsFromArgv([file]);
    const fromFlags = runSettingsFromArgv([
      "--models",
      "builtin:random,builtin:heuristic",
      "--games",
      "snake,minesweeper",
      "--pathways",
      "none,history",
      "--data",
      join(dir, "logs"),
      "--explore-episodes",
      "6",
      "--checkpoint-every",
      "2",
      "--context-tokens",
      "30000",
      "--max-new-tokens",
      "2000",
      "--strict-contract",
      "--views",
      "eval,id",
      "--view-episodes",
      "2",
      "--run-seed",
      "0",
    ]);
    expect(fromStudy).toEqual(fromFlags);
    expect(fromStudy.data).toBe(join(dir, "logs"));
    expect(fromStudy.settings.parseRule).toBe("strict-contract");
  });

  it("lets a flag given on the command line override the study's value", () => {
    const { file } = studyDir(`${BASE}protocol: { max-steps: 20 }\nseeds: [3]\n`);
    const s = runSettingsFromArgv([file, "--max-steps", "7", "--games", "chess"]);
    expect(s.settings.maxSteps).toBe(7);
    expect(s.games).toEqual(["chess"]);
  });

  it("has one protocol key per flagged PROTOCOL_SETTINGS row, each setting what its flag sets", () => {
    const flagged = PROTOCOL_SETTINGS.filter((r) => r.flag !== null).map((r) => r.flag!.name);
    const schema = studyJsonSchema() as { properties: { protocol: { properties: Record<string, unknown> } } };
    expect(Object.keys(schema.properties.protocol.properties).sort()).toEqual([...flagged].sort());
    // A non-default value per row, from its kind: the study and the flag must land on the same setting.
    for (const r of STUDY_PROTOCOL_ROWS) {
      const k = r.flag.kind;
      if (r.flag.name === "run-seed") continue; // the seeds: list (below)
      const value =
        k.type === "int"
          ? r.flag.name === "context-tokens"
            ? 50_000
            : Math.min(k.range.max, 2)
          : k.type === "choice"
            ? k.choices.find((c) => c !== r.default)!
            : k.type === "switch"
              ? true
              : k.type === "text"
                ? (({ "hybrid-k": "2", "hybrid-summary-share": "40%" } as Record<string, string>)[r.flag.name] ?? "verifier") /* the judge row's text */
                : 0.25;
      const flagArgv = k.type === "switch" ? [`--${r.flag.name}`] : [`--${r.flag.name}`, String(value)];
      const { dir, file } = studyDir(`${BASE}protocol:\n  ${r.flag.name}: ${JSON.stringify(value)}\n`);
      const a = runSettingsFromArgv([file]);
      const b = runSettingsFromArgv([
        "--models",
        "builtin:random,builtin:heuristic",
        "--games",
        "snake,minesweeper",
        "--pathways",
        "none,history",
        "--data",
        join(dir, "data"),
        "--run-seed",
        "0",
        ...flagArgv,
      ]);
      expect(a.settings, r.flag.name).toEqual(b.settings);
      expect(a.settings[r.key], r.flag.name).not.toEqual(r.default);
    }
  });

  it("takes models-file entries under an alias, with their key's NAME", () => {
    const { dir, file } = studyDir(
      `models:\n  - alias: mine\n    spec: openai:my-model\n    base_url: http://127.0.0.1:9/v1\n    api_key_env: VLLM_KEY\n    concurrency: 16\n  - builtin:heuristic\ngames: all\npathways: [none]\n`,
    );
    const s = loadStudy(file);
    expect(s.models).toEqual(["mine", "builtin:heuristic"]);
    expect(s.entries.map((e) => [e.alias, e.api_key_env, e.concurrency])).toEqual([["mine", "VLLM_KEY", 16]]);
    expect(s.data).toBe(join(dir, "data"));
    expect(s.out).toBe(join(dir, "figures"));
  });
});

describe("the none control", () => {
  it("is added, with a note, when a learning pathway is listed without it", () => {
    const { file } = studyDir("models: [builtin:random]\ngames: [snake]\npathways: [history, memory]\n");
    const s = loadStudy(file);
    expect(s.pathways).toEqual(["none", "history", "memory"]);
    expect(s.notes.join("\n")).toMatch(/playing the 'none' control/);
    expect(runSettingsFromArgv([file]).pathways).toEqual(["none", "history", "memory"]);
  });

  it("is not added with control: false, and the empty gain columns are announced", () => {
    const { file } = studyDir("models: [builtin:random]\ngames: [snake]\npathways: [history]\ncontrol: false\n");
    const s = loadStudy(file);
    expect(s.pathways).toEqual(["history"]);
    expect(s.notes.join("\n")).toMatch(/WARNING.*gain_vs_none columns of the report will be EMPTY/);
  });
});

describe("the smoke profile", () => {
  it("plays one exploration episode, a checkpoint, one evaluation episode, 4 steps, into its own folder", () => {
    const { dir, file } = studyDir(`${BASE}protocol: { explore-episodes: 30, context-tokens: 30000, max-new-tokens: 2000 }\n`);
    const s = runSettingsFromArgv([file, "--smoke"]);
    expect([s.settings.exploreEpisodes, s.settings.checkpointEvery, s.settings.evalEpisodes, s.settings.maxSteps]).toEqual([1, 1, 1, 4]);
    expect(s.settings.contextTokens).toBe(30000); // the study's other settings stay
    expect(s.data).toBe(join(dir, "smoke", "data"));
    // Gains average checkpoints from 3 on: the smoke run says its gain columns stay empty, the study does not.
    expect(loadStudy(file, { smoke: true }).notes.join("\n")).toMatch(/smoke run: explore-episodes 1 ends before checkpoint 3.*stay empty/);
    expect(loadStudy(file).notes.join("\n")).not.toMatch(/stay empty/);
  });

  it("without a study, writes beside --data", () => {
    const s = runSettingsFromArgv(["--models", "builtin:random", "--games", "snake", "--pathways", "none", "--data", "/tmp/x/run/", "--smoke"]);
    expect(s.data).toBe("/tmp/x/run-smoke");
    expect(s.settings.exploreEpisodes).toBe(1);
  });
});

describe("a bad study is refused naming the field, the value and the fix", () => {
  it("names an out-of-range protocol value with the value given", () => {
    const { file } = studyDir(`${BASE}protocol: { explore-episodes: -4 }\n`);
    const e = errorOf(() => loadStudy(file));
    expect(e).toBeInstanceOf(UsageError);
    expect(e.message).toMatch(/protocol\.explore-episodes: .*(>=|at least|greater).*\(got -4\)/);
  });

  it("names a bad game list with the list given and the games there are", () => {
    const { file } = studyDir("models: [builtin:random]\ngames: [snak]\npathways: [none]\n");
    expect(errorOf(() => loadStudy(file)).message).toMatch(/games: must be 'all' or a list of chess, .*trust \(got \["snak"\]\)/);
  });

  it("suggests the key meant by a typo", () => {
    const { file } = studyDir(`${BASE}protocl: { max-steps: 3 }\n`);
    expect(errorOf(() => loadStudy(file)).message).toMatch(/unknown key 'protocl' \(did you mean 'protocol'\?\)/);
    const { file: f2 } = studyDir(`${BASE}protocol: { max-step: 3 }\n`);
    expect(errorOf(() => loadStudy(f2)).message).toMatch(/protocol: unknown key 'max-step' \(did you mean 'max-steps'\?\)/);
  });

  it("never echoes a value under models: (a key pasted there)", () => {
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    const { file } = studyDir(`models:\n  - alias: mine\n    spec: openai:m\n    api_key_env: ${secret}\ngames: all\npathways: [none]\n`);
    const e = errorOf(() => loadStudy(file));
    expect(e.message).toMatch(/models\[0\]\.api_key_env/);
    expect(e.message).not.toContain(secret);
  });

  it("refuses a missing file with the command that creates one, a list twice, and two seeds settings", () => {
    expect(errorOf(() => loadStudy("/nonexistent/s3gym.yaml")).message).toMatch(/s3gym init DIR/);
    const { file } = studyDir("models: [builtin:random, builtin:random]\ngames: all\npathways: [none]\n");
    expect(errorOf(() => loadStudy(file)).message).toMatch(/'builtin:random' is listed twice/);
    const { file: f3 } = studyDir(`${BASE}protocol: { run-seed: 2 }\nseeds: [0, 1]\n`);
    expect(errorOf(() => loadStudy(f3)).message).toMatch(/protocol\.run-seed and seeds/);
  });

  it("takes its run seeds as a list or as a count n (seeds 0..n-1, the same runs as the list); a bad count names both forms", () => {
    const { file: counted } = studyDir(`${BASE}seeds: 3\n`);
    const { file: listed } = studyDir(`${BASE}seeds: [0, 1, 2]\n`);
    expect(loadStudy(counted).seeds).toEqual([0, 1, 2]);
    expect(loadStudy(counted).seeds).toEqual(loadStudy(listed).seeds);
    expect(studyRecord(loadStudy(counted), {}).content.seeds).toEqual(studyRecord(loadStudy(listed), {}).content.seeds);
    // Each seed plays the flags' run with --run-seed: the settings of seed 2 are the command line's.
    expect(runSettingsFromArgv([counted, "--run-seed", "2"])).toEqual(
      runSettingsFromArgv(["--models", "builtin:random,builtin:heuristic", "--games", "snake,minesweeper", "--pathways", "none,history", "--data", join(counted, "..", "data"), "--run-seed", "2"]),
    );
    for (const bad of ["0", "-1", "1.5", "101", "many"]) {
      const { file } = studyDir(`${BASE}seeds: ${bad}\n`);
      expect(errorOf(() => loadStudy(file)).message, bad).toMatch(/seeds.*must be a list of run seeds such as \[0, 1, 2\], or a count 1\.\.100/);
    }
  });

  it("refuses --models-file and --job beside a study", () => {
    const { file } = studyDir(BASE);
    expect(() => runSettingsFromArgv([file, "--models-file", "m.yaml"])).toThrow(/list the models .* under the study's models:/);
    expect(() => runSettingsFromArgv([file, "--job", "j.json"])).toThrow(/cannot be mixed/);
  });
});

describe("the recorded study", () => {
  it("has a hash that changes with what decides the runs, not with --progress", () => {
    const { file } = studyDir(BASE);
    const s = loadStudy(file);
    const a = studyRecord(s, {});
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(studyRecord(s, { progress: "off" }).sha256).toBe(a.sha256);
    expect(studyRecord(s, { "max-steps": "9" }).sha256).not.toBe(a.sha256);
    expect(studyRecord(loadStudy(file, { smoke: true }), {}).sha256).not.toBe(a.sha256);
  });

  it("is written beside the runs, and every manifest names its hash; the seeds play in turn", async () => {
    const { dir, file } = studyDir("models: [builtin:random]\ngames: [snake]\npathways: [none]\nseeds: [0, 1]\n");
    let err = "";
    const rc = await runCommand([file, "--smoke", "--progress", "off"], { stdout: { write: () => true }, stderr: { write: (t: string) => ((err += t), true) } as never });
    expect(rc, err).toBe(0);
    const data = join(dir, "smoke", "data");
    const rec = JSON.parse(readFileSync(join(data, "study.json"), "utf8")) as { sha256: string; seeds: number[]; study_file: string };
    expect(rec.seeds).toEqual([0, 1]);
    expect(rec.study_file).toBe(file);
    expect(readFileSync(join(data, "studies", `${rec.sha256}.json`), "utf8")).toBe(readFileSync(join(data, "study.json"), "utf8"));
    const runs = readdirSync(join(data, "runs")).sort();
    expect(runs.map((r) => r.replace(/-[0-9a-f]{8}__/, "__"))).toEqual(["snake__none__builtin-random__seed0", "snake__none__builtin-random__seed1"]);
    for (const r of runs) {
      const m = JSON.parse(readFileSync(join(data, "runs", r, "manifest.json"), "utf8")) as { config: { invocation: { study: { sha256: string; file: string } } } };
      expect(m.config.invocation.study).toEqual({ sha256: rec.sha256, file: `studies/${rec.sha256}.json` });
    }
  }, 60_000);
});

describe("s3gym init", () => {
  it("writes a study the kit reads, its schema, a notebook importing s3gym, .gitignore and README; never overwrites", async () => {
    const root = mkdtempSync(join(tmpdir(), "s3gym-init-"));
    const dir = join(root, "mine");
    const out: string[] = [];
    expect(await initCommand([dir, "--model", "openai:qwen3", "--base-url", "http://127.0.0.1:8000/v1", "--api-key-env", "VLLM_KEY"], { stdout: { write: (s) => out.push(s) } })).toBe(0);
    for (const f of ["s3gym.yaml", "s3gym.schema.json", "analysis.ipynb", ".gitignore", "README.md"]) expect(existsSync(join(dir, f)), f).toBe(true);
    const s = loadStudy(join(dir, "s3gym.yaml"));
    expect(s.entries[0]).toMatchObject({ alias: "mine", spec: "openai:qwen3", api_key_env: "VLLM_KEY" });
    expect(s.models).toEqual(["mine", "builtin:heuristic"]);
    expect(StudyFile.safeParse(parseYaml(readFileSync(join(dir, "s3gym.yaml"), "utf8"))).success).toBe(true);
    const nb = JSON.parse(readFileSync(join(dir, "analysis.ipynb"), "utf8")) as { cells: { source: string[] }[] };
    expect(nb.cells.map((c) => c.source.join("")).join("\n")).toContain('from "s3gym"');
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toMatch(/^\/data\/$/m);
    expect(out.join("")).toContain("npx s3gym run s3gym.yaml --smoke");
    await expect(initCommand([dir], { stdout: { write: () => true } })).rejects.toThrow(/already holds s3gym\.yaml.*--force/);
    await expect(initCommand([join(root, "bad"), "--api-key-env", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"], { stdout: { write: () => true } })).rejects.toThrow(UsageError);
    expect(existsSync(join(root, "bad"))).toBe(false);
  });
});

describe("a study gives the reading commands their folders", () => {
  it("resolves --data and --out from the study's folder, --smoke picks the smoke ones, a given flag wins", () => {
    const { dir, file } = studyDir(`${BASE}data: d\nout: o\n`);
    mkdirSync(join(dir, "d"));
    expect(studyArgv("report", [file])).toEqual(["--out", join(dir, "o"), "--data", join(dir, "d")]);
    expect(studyArgv("view", [file, "--smoke"])).toEqual(["--out", join(dir, "smoke", "figures", "view"), "--data", join(dir, "smoke", "data")]);
    expect(studyArgv("report", [file, "--out", "/x"])).toEqual(["--data", join(dir, "d"), "--out", "/x"]);
    expect(studyArgv("status", [file])).toEqual(["--data", join(dir, "d")]);
    expect(studyArgv("report", ["--data", "x"])).toEqual(["--data", "x"]);
    expect(studyArgv("games", [file])).toEqual([file]);
  });

  it("gives report the study's figure settings (the theme from the study's folder), a given flag wins, other commands none", () => {
    const { dir, file } = studyDir(`${BASE}data: d\nout: o\nfigures:\n  size: column\n  theme: look/theme.json\n  captions-in-figure: true\n  tex-intervals: columns\n`);
    expect(studyArgv("report", [file])).toEqual([
      "--out",
      join(dir, "o"),
      "--data",
      join(dir, "d"),
      "--figure-size",
      "column",
      "--theme",
      join(dir, "look", "theme.json"),
      "--captions-in-figure",
      "--tex-intervals",
      "columns",
    ]);
    expect(studyArgv("report", [file, "--figure-size", "slide"])).toEqual([
      "--out",
      join(dir, "o"),
      "--data",
      join(dir, "d"),
      "--figure-size",
      "slide",
      "--theme",
      join(dir, "look", "theme.json"),
      "--captions-in-figure",
      "--tex-intervals",
      "columns",
    ]);
    expect(studyArgv("view", [file])).toEqual(["--out", join(dir, "o", "view"), "--data", join(dir, "d")]);
  });

  it("names a bad figure size with the sizes it takes", () => {
    const { file } = studyDir(`${BASE}figures: { size: poster }\n`);
    expect(() => loadStudy(file)).toThrow(/figures\.size.*column.*page.*slide/s);
  });
});
