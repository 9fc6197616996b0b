/**
 * `s3gym COMMAND STUDY.yaml [--smoke] [flags]` for the commands that read a study's data: the study
 * file, as the first argument, stands for `--data` (and `--out` where the command writes), both
 * resolved from the study file's folder; `--smoke` picks the smoke profile's folders. A `--data` or
 * `--out` given on the command line wins; `report` also takes the study's `figures:` as its figure flags
 * (a flag given wins). `s3gym run` reads the whole study itself (run.ts).
 */
import { join, resolve } from "node:path";
import { isStudyPath, loadStudy } from "./loadStudy.js";

/** The commands that take a study in place of their folders, and the subfolder of the study's `out` they write (null: no --out). */
const STUDY_FOLDERS: Readonly<Record<string, { out: string | null }>> = {
  report: { out: "" },
  notebooks: { out: "" },
  view: { out: "view" },
  export: { out: "export" },
  status: { out: null },
  sql: { out: null },
  compare: { out: null },
  power: { out: null },
};

/** `argv` with a leading study file replaced by the folders it names; unchanged when it does not start with one. */
export function studyArgv(command: string, argv: readonly string[]): string[] {
  const spec = STUDY_FOLDERS[command];
  const first = argv[0];
  if (spec === undefined || first === undefined || first.startsWith("-") || !isStudyPath(first)) return [...argv];
  const rest = argv.slice(1);
  const smoke = rest.includes("--smoke");
  const study = loadStudy(first, { smoke });
  const given = (flag: string): boolean => rest.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  const out: string[] = rest.filter((a) => a !== "--smoke");
  if (!given("data")) out.unshift("--data", study.data);
  if (spec.out !== null && !given("out")) out.unshift("--out", spec.out === "" ? study.out : join(study.out, spec.out));
  const f = study.raw.figures;
  if (command === "report" && f !== undefined) {
    if (f.size !== undefined && !given("figure-size")) out.push("--figure-size", f.size);
    if (f.theme !== undefined && !given("theme")) out.push("--theme", resolve(study.dir, f.theme));
    if (f["captions-in-figure"] === true && !given("captions-in-figure")) out.push("--captions-in-figure");
    if (f["tex-intervals"] !== undefined && !given("tex-intervals")) out.push("--tex-intervals", f["tex-intervals"]);
  }
  return out;
}
