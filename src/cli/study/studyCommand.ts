/**
 * `s3gym study FILE [--smoke]`: checks a study file and prints what it resolves to (the folders, the
 * seeds, the notes, and the `s3gym run` flags it stands for); `s3gym study --schema` prints its JSON
 * Schema (the one `s3gym init` writes as s3gym.schema.json).
 */
import { parseFlagsAndPositionals, UsageError } from "../shared/args.js";
import { schemaJson } from "./initFiles.js";
import { loadStudy } from "./loadStudy.js";

export const STUDY_USAGE = "s3gym study FILE [--smoke] | s3gym study --schema";

const FLAGS = { smoke: { type: "boolean" }, schema: { type: "boolean" } } as const;

export async function studyCommand(argv: string[], io: { stdout: { write(s: string): unknown } } = process): Promise<number> {
  const { values: v, positionals } = parseFlagsAndPositionals(argv, FLAGS, STUDY_USAGE);
  if (v.schema === true) {
    if (positionals.length > 0) throw new UsageError("--schema prints the schema of every study: give no file with it");
    io.stdout.write(schemaJson());
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`give one study file\nusage: ${STUDY_USAGE}`);
  const s = loadStudy(positionals[0]!, { smoke: v.smoke === true });
  const flags = Object.entries(s.flags).map(([k, x]) => (x === true ? `--${k}` : `--${k} ${x}`));
  io.stdout.write(
    [
      `study ${s.file}${s.smoke ? " (smoke profile)" : ""}: valid`,
      `data  ${s.data}`,
      `out   ${s.out}`,
      `seeds ${s.seeds.join(", ")}`,
      ...s.notes.map((n) => `note  ${n}`),
      `plays s3gym run ${flags.join(" ")} (once per seed, with --run-seed)`,
      ...(s.entries.length > 0 ? [`models-file entries: ${s.entries.map((e) => e.alias).join(", ")}`] : []),
      "",
    ].join("\n"),
  );
  return 0;
}
