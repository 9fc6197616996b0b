/**
 * `s3gym init DIR [--model SPEC] [--base-url URL] [--api-key-env NAME] [--force]`: scaffolds a study
 * folder (study/initFiles.ts): `s3gym.yaml` (commented), `s3gym.schema.json` (for editors),
 * `analysis.ipynb` (imports `s3gym` as a package), `.gitignore` (data and outputs) and `README.md`
 * (the next three commands). An existing file is never overwritten without `--force`.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { escapeControl } from "../../util/outsideText.js";
import { folderFlag, parseFlagsAndPositionals, UsageError } from "../shared/args.js";
import { gitignore, INIT_DEFAULTS, notebookJson, NOTEBOOK_FILE_NAME, readme, schemaJson, SCHEMA_FILE_NAME, studyYaml } from "./initFiles.js";
import { STUDY_FILE_NAME, studyIssues } from "./loadStudy.js";
import { StudyFile } from "./studySchema.js";

export const INIT_USAGE = [
  "s3gym init DIR [--model openai:MODEL] [--base-url URL] [--api-key-env NAME] [--force]",
  "",
  "  DIR              the study folder (created when missing)",
  `  --model          your model's spec (default ${INIT_DEFAULTS.model}); --base-url its endpoint (default ${INIT_DEFAULTS.baseUrl})`,
  `  --api-key-env    the NAME of the variable holding its key (default ${INIT_DEFAULTS.apiKeyEnv})`,
  "  --force          overwrite files that exist",
].join("\n");

const FLAGS = {
  model: { type: "string" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  force: { type: "boolean" },
} as const;

export async function initCommand(argv: string[], io: { stdout: { write(s: string): unknown } } = process): Promise<number> {
  const { values: v, positionals } = parseFlagsAndPositionals(argv, FLAGS, INIT_USAGE);
  if (positionals.length !== 1) throw new UsageError(`give one study folder (got ${positionals.length}): s3gym init DIR\nusage: ${INIT_USAGE}`);
  const dir = resolve(folderFlag("dir", positionals[0]!));
  const options = { model: v.model ?? INIT_DEFAULTS.model, baseUrl: v["base-url"] ?? INIT_DEFAULTS.baseUrl, apiKeyEnv: v["api-key-env"] ?? INIT_DEFAULTS.apiKeyEnv };
  const study = studyYaml(options);
  // The study written must be one the kit reads: a bad --model, --base-url or --api-key-env is refused here.
  const checked = StudyFile.safeParse(parseYaml(study));
  if (!checked.success) throw new UsageError(`the flags make an invalid study: ${studyIssues(checked.error, parseYaml(study))} (check --model, --base-url, --api-key-env)`);
  const files: [string, string][] = [
    [STUDY_FILE_NAME, study],
    [SCHEMA_FILE_NAME, schemaJson()],
    [NOTEBOOK_FILE_NAME, notebookJson()],
    [".gitignore", gitignore()],
    ["README.md", readme(relative(process.cwd(), dir) || ".")],
  ];
  const present = files.filter(([f]) => existsSync(join(dir, f))).map(([f]) => f);
  if (present.length > 0 && v.force !== true) throw new UsageError(`${escapeControl(dir)} already holds ${present.join(", ")}: nothing was written (--force overwrites them)`);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of files) writeFileAtomic(join(dir, f), text);
  const at = relative(process.cwd(), dir) || ".";
  io.stdout.write(
    `wrote ${files.map(([f]) => f).join(", ")} into ${at}\n` +
      `next (from ${at}): edit models: in ${STUDY_FILE_NAME}, then\n` +
      `  npx s3gym run ${STUDY_FILE_NAME} --smoke\n  npx s3gym run ${STUDY_FILE_NAME}\n  npx s3gym report ${STUDY_FILE_NAME}\n`,
  );
  return 0;
}
