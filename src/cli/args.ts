/** Argument helpers shared by the `s3gym` subcommands: one-line errors that name the flag and the fix. */
import { parseArgs } from "node:util";
import { ConfigError } from "../util/errors.js";

/** A bad flag: a ConfigError (exit 2), named for the CLI. */
export class UsageError extends ConfigError {
  override name = "UsageError";
}

/**
 * The exit code of a command that stopped on `e`, by the error's TYPE (never its message): 2 for input
 * the user can fix before anything runs (ConfigError, UsageError included), 1 for anything else.
 */
export function exitCodeOf(e: unknown): 1 | 2 {
  return e instanceof ConfigError ? 2 : 1;
}

export type FlagSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;
export type FlagValues<T extends FlagSpec> = {
  [K in keyof T]?: T[K] extends { type: "boolean" } ? boolean : T[K] extends { multiple: true } ? string[] : string;
};

/** Thrown for `--help`: the dispatcher prints the usage to stdout and exits 0. */
export class HelpRequested extends Error {
  override name = "HelpRequested";
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
    const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals });
    return { values: values as FlagValues<T>, positionals };
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]}\nusage: ${usage}`);
  }
}

/** A non-negative integer flag value, or a UsageError naming the flag. */
export function nonNegativeInt(flag: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${flag} is required`);
    return fallback;
  }
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`--${flag} must be a non-negative integer, got '${value}'`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${flag} is too large: ${value}`);
  return n;
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** A finite number flag (may be negative or fractional). */
export function numberFlag(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!NUMBER.test(value.trim())) throw new UsageError(`--${flag} must be a number, got '${value}'`);
  return Number(value);
}

/** A value from a fixed list, or a UsageError listing the valid values. */
export function oneOf<T extends string>(flag: string, value: string | undefined, valid: readonly T[], fallback?: T): T {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${flag} is required: one of ${valid.join(", ")}`);
    return fallback;
  }
  if (!(valid as readonly string[]).includes(value)) throw new UsageError(`unknown --${flag} '${value}': expected one of ${valid.join(", ")}`);
  return value as T;
}
