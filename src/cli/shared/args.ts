/** Argument helpers shared by the `s3gym` subcommands: one-line errors that name the flag and the fix. */
import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, UsageError } from "../../util/errors.js";
import { escapeControl, identifierProblem } from "../../util/outsideText.js";

/** A bad flag: a ConfigError (exit 2), named for the CLI; defined beside ConfigError so option rows below the CLI throw it too. */
export { UsageError };

/**
 * The exit code of a command that stopped on `e`, by the error's TYPE (never its message): 2 for input
 * the user can fix before anything runs (ConfigError, UsageError included), 1 for anything else.
 */
export function exitCodeOf(e: unknown): 1 | 2 {
  return e instanceof ConfigError ? 2 : 1;
}

export type FlagSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;
export type FlagValues<T extends FlagSpec> = {
  [K in keyof T]?: T[K] extends { type: "boolean" }
    ? boolean
    : T[K] extends { multiple: true }
      ? string[]
      : T[K] extends { type: "string"; multiple?: undefined }
        ? string
        : string | boolean | string[];
};

/** Thrown for `--help`: the dispatcher prints the usage to stdout and exits 0. */
export class HelpRequested extends Error {
  override name = "HelpRequested";
}

/**
 * `--flag -5` as `--flag=-5` for string-valued flags: node's parseArgs refuses a value that starts
 * with a dash ("argument is ambiguous"), which hid the real message (the flag's range) from whoever
 * typed a negative number. Only values that read as numbers are joined; `--flag -x` stays an error.
 */
export function joinNegativeNumbers(argv: readonly string[], options: Record<string, { type: string }>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    const name = a.startsWith("--") && !a.includes("=") ? a.slice(2) : null;
    if (name !== null && options[name]?.type === "string" && next !== undefined && /^-(\d|\.\d|Infinity)/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** node:util parseArgs in strict mode, with its errors turned into UsageError. */
export function parseFlags<T extends FlagSpec>(argv: string[], options: T, usage: string): { values: FlagValues<T> } {
  return { values: strictParse(argv, options, usage, false).values };
}

/** As `parseFlags`, also accepting positional arguments (e.g. the notebook names of `s3gym notebooks`). */
export function parseFlagsAndPositionals<T extends FlagSpec>(argv: string[], options: T, usage: string): { values: FlagValues<T>; positionals: string[] } {
  return strictParse(argv, options, usage, true);
}

function strictParse<T extends FlagSpec>(argv: string[], options: T, usage: string, allowPositionals: boolean): { values: FlagValues<T>; positionals: string[] } {
  if (argv.includes("--help") || argv.includes("-h")) throw new HelpRequested(`usage: ${usage}`);
  try {
    const { values, positionals } = parseArgs({ args: joinNegativeNumbers(argv, options), options, strict: true, allowPositionals });
    return { values: values as FlagValues<T>, positionals };
  } catch (e) {
    const first = (e as Error).message.split("\n")[0];
    const unknown = (e as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'--([^'=]+)/.exec(first ?? "")?.[1] : undefined;
    const guess = unknown === undefined ? null : closestName(unknown, Object.keys(options));
    throw new UsageError(`${first}${guess === null ? "" : ` (did you mean --${guess}?)`}\nusage: ${usage}`);
  }
}

/** Edit distance (insert, delete, replace, swap of neighbours), for "did you mean". Inputs are flag names: short. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to a mistyped one: within 2 edits (1 for names of 4 letters or fewer), or the
 * only name it is a prefix of; null when nothing is close or two names tie.
 */
export function closestName(typed: string, names: readonly string[]): string | null {
  if (typed.length > 64) return null;
  const limit = typed.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestD = Infinity;
  let tie = false;
  for (const n of names) {
    const d = editDistance(typed, n);
    if (d < bestD) [best, bestD, tie] = [n, d, false];
    else if (d === bestD) tie = true;
  }
  if (best !== null && bestD <= limit && !tie) return best;
  const prefixed = names.filter((n) => n.startsWith(typed));
  return prefixed.length === 1 ? prefixed[0]! : null;
}

// The value readers of every option row (util/options.ts), kept importable from here for the commands.
export { intFlag, nonNegativeInt, numberFlag, oneOf, type IntRange } from "../../util/options.js";

/** Kernel and device file systems: creating folders there fails or spins (`mkdir -p /proc/self/x` looped). */
const SYSTEM_FOLDERS = ["/proc", "/sys", "/dev"];

/**
 * The system folder `path` lies under (after resolving symbolic links of its existing part, so a link
 * into /proc counts), or null.
 */
export function systemFolderOf(path: string): string | null {
  let p = resolve(path);
  const rest: string[] = [];
  // The deepest existing ancestor, with its links resolved; the missing tail is appended as written.
  for (;;) {
    try {
      p = join(realpathSync(p), ...rest.reverse());
      break;
    } catch {
      const up = dirname(p);
      if (up === p) break;
      rest.push(basename(p));
      p = up;
    }
  }
  return SYSTEM_FOLDERS.find((s) => p === s || p.startsWith(`${s}/`)) ?? null;
}

/**
 * A folder flag (`--data`, `--out`): the path, or a UsageError when it or a folder above it is a
 * file (mkdir would fail with EEXIST/ENOTDIR, exit 1, after the plan was made). Missing folders are
 * fine: they are created.
 */
export function folderFlag(flag: string, path: string): string {
  const system = systemFolderOf(path);
  if (system)
    throw new UsageError(
      `--${flag} ${escapeControl(path)} is under ${system}, a kernel or device folder, not storage: give a folder on a disk (e.g. --${flag} ./${flag === "data" ? "data" : "figures"})`,
    );
  let p = resolve(path);
  for (;;) {
    let isDir: boolean | null = null;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      // missing (or unreadable): look further up
    }
    if (isDir === false) {
      const where = p === resolve(path) ? "is a file" : `is inside ${p}, which is a file`;
      throw new UsageError(`--${flag} ${path} ${where}, not a folder: give a folder (a missing one is created)`);
    }
    if (isDir === true) return path;
    const up = dirname(p);
    if (up === p) return path;
    p = up;
  }
}

/**
 * `argv` without the named flags and their values (`--name v`, `--name=v`; `booleans` take no value):
 * what a command keeps of another's arguments when it sets those flags itself.
 */
export function withoutFlags(argv: readonly string[], valued: readonly string[], booleans: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith("--") ? a.slice(2).split("=")[0]! : null;
    if (name !== null && booleans.includes(name)) continue;
    if (name !== null && valued.includes(name)) {
      if (!a.includes("=")) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * A label (`--label`, a job file's label) as given, or a UsageError naming `where` when it holds a
 * control or invisible character: it becomes the `model` of every record, a file name, SVG text, a
 * table cell and terminal lines, so it is refused at the door, shown escaped (outsideText.ts).
 */
export function labelFlag(where: string, value: string): string {
  const problem = identifierProblem(value);
  if (problem !== null) throw new UsageError(`${where} ${problem}`);
  return value;
}
