/**
 * Option rows: one entry per flag saying its name, how its text is read (kind), its default and its
 * help. Every command's parser spec, usage tokens, values and defaults, and the zod schemas of a job
 * file and of a study file derive from the rows; a module owns the rows of the behaviour it sets
 * (endpoint rows in models/, a pathway's in its pathway module, the protocol's in
 * runner/settings/protocolSettings.ts) and a command lists the tables it offers.
 *
 * `OptionTable<S>` maps every field of a settings type to its row, so a settings field without a row
 * (or a row of the wrong value type) does not compile (tests/types/optionTable.ts).
 *
 * Also here: the value readers every row uses (integers in a range, choices, numbers, shares, comma
 * lists), so each kind is read, and refused, one way; a refusal is a UsageError naming the flag.
 */
import { z } from "zod";
import { UsageError } from "./errors.js";

/** An inclusive integer range a flag accepts. */
export interface IntRange {
  min: number;
  max: number;
  /** Why the minimum is what it is, ending the refusal of a value below it (`the 95% quantile of the null needs them`). */
  why?: string;
}

/** How an option's flag text is read. */
export type OptionKind =
  /** An integer in `range`; usage shows the default. */
  | { type: "int"; range: IntRange }
  /** One of `choices`; usage shows them all. */
  | { type: "choice"; choices: readonly string[] }
  /** A boolean flag: present sets the value to `on`, absent leaves the default. */
  | { type: "switch"; on: unknown }
  /** A share in [0, 1] or a percentage (`--max-bad-replies`); usage shows `shown`, a bad value's error `note` (what the ends mean). */
  | { type: "share"; shown: string; note: string }
  /** Free text read by `parse`: it returns the value or throws saying what is expected; usage shows `shown`. */
  | { type: "text"; shown: string; parse(value: string): unknown };

/** One flag: the one row every derived thing (parser spec, usage, value, default, schemas) reads. */
export interface Option<V> {
  /** The flag's name without `--`. */
  name: string;
  kind: OptionKind;
  /** The value when the flag is absent (undefined: unset). */
  default: V | undefined;
  /** Shown after the usage token (`[--keep-think]: ...`) on a line of its own; absent: the token alone. */
  help?: string;
  /** What it sets, one phrase (a study file's schema describes the key with it). */
  about?: string;
  /** The usage token's argument when not the kind's (`[--max-retry-after 600]` for a row whose unset default means 600). */
  arg?: string;
  /** The flag may be repeated (`--base-url A --base-url B`); its values are read as one comma list. */
  multiple?: true;
  /**
   * The flag must be given (and not blank): absent, its refusal is `--name is required: <this text>`
   * (what to give); its usage token has no brackets.
   */
  required?: string;
}

/** Every field of the settings type `S` with its row: a field without one is a compile error. */
export type OptionTable<S> = { readonly [K in keyof S]-?: Option<S[K]> };

/** A table's rows in the order written, each with its settings key. */
export function optionRows<S>(table: OptionTable<S>): (Option<unknown> & { key: string })[] {
  return Object.entries(table as Record<string, Option<unknown>>).map(([key, o]) => ({ key, ...o }));
}

/** The parser spec of some rows (node:util parseArgs: a switch is boolean, anything else a string). */
export function optionFlags(rows: readonly Option<unknown>[]): Record<string, { type: "string" | "boolean"; multiple?: boolean }> {
  return Object.fromEntries(rows.map((r) => [r.name, r.multiple ? { type: "string", multiple: true } : { type: r.kind.type === "switch" ? "boolean" : "string" }]));
}

/** A row's usage token: `[--max-steps 64]`, `[--tokenizer o200k|cl100k]`, `[--strict-contract]`; a required row's without brackets. */
export function usageToken(r: Option<unknown>): string {
  const k = r.kind;
  const shown = r.arg !== undefined ? r.arg : k.type === "int" ? String(r.default) : k.type === "choice" ? k.choices.join("|") : k.type === "share" || k.type === "text" ? k.shown : null;
  const token = `--${r.name}${shown === null ? "" : ` ${shown}`}`;
  return r.required !== undefined ? token : `[${token}]`;
}

/** Usage lines are filled up to this many characters (a wide terminal's usage stays readable). */
export const USAGE_WIDTH = 110;

/** Usage lines of some rows: the tokens of rows without help filled to USAGE_WIDTH, then one line per row with help. */
export function usageLines(rows: readonly Option<unknown>[]): string[] {
  const lines: string[] = [];
  let line = " ";
  for (const r of rows.filter((x) => x.help === undefined)) {
    const token = usageToken(r);
    if (line.length > 1 && line.length + 1 + token.length > USAGE_WIDTH) {
      lines.push(line);
      line = " ";
    }
    line += ` ${token}`;
  }
  if (line.length > 1) lines.push(line);
  for (const r of rows.filter((x) => x.help !== undefined)) lines.push(`  ${usageToken(r)}: ${r.help}`);
  return lines;
}

/** One row's value from its flag (absent: the row's default); a UsageError names the flag. */
export function readOption(r: Option<unknown>, value: string | boolean | string[] | undefined): unknown {
  const k = r.kind;
  const text = typeof value === "string" ? value : Array.isArray(value) ? value.join(",") : undefined;
  if (r.required !== undefined && (text === undefined || text.trim() === "")) throw new UsageError(`--${r.name} is required: ${r.required}`);
  // Absent: the default, unset included (an option without a default is optional).
  if (text === undefined && k.type !== "switch") return r.default;
  switch (k.type) {
    case "int":
      return intFlag(r.name, text, r.default as number, k.range);
    case "choice":
      return oneOf(r.name, text, k.choices, r.default as string);
    case "switch":
      return value === true ? k.on : r.default;
    case "share":
      return shareFlag(r.name, text, r.default as number, k.note);
    case "text":
      if (text === undefined) return r.default;
      try {
        return k.parse(text);
      } catch (e) {
        // A UsageError already names the flag and the fix; anything else is prefixed with the flag.
        if (e instanceof UsageError) throw e;
        throw new UsageError(`--${r.name}: ${(e as Error).message}`);
      }
  }
}

/** A table's settings from flag values (names as flags); a field whose value is undefined is left out. */
export function readOptions<S>(table: OptionTable<S>, values: Readonly<Record<string, string | boolean | string[] | undefined>>): S {
  const out: Record<string, unknown> = {};
  for (const r of optionRows(table)) {
    const v = readOption(r, values[r.name]);
    if (v !== undefined) out[r.key] = v;
  }
  return out as S;
}

/** A table's defaults: every row with a default (what readOptions gives an empty command line). */
export function optionDefaults<S>(table: OptionTable<S>): Partial<S> {
  return Object.fromEntries(
    optionRows(table)
      .filter((r) => r.default !== undefined)
      .map((r) => [r.key, r.default]),
  ) as Partial<S>;
}

/** A row's value as a job file holds it (the parsed value: a number, a choice, the switch's values). */
export function valueSchema(r: Option<unknown>): z.ZodType {
  const k = r.kind;
  switch (k.type) {
    case "int":
      return z.number().int().min(k.range.min).max(k.range.max);
    case "choice":
      return z.enum(k.choices as [string, ...string[]]);
    case "switch":
      // Present: `on`; absent: the default (a switch whose default is unset has `on` alone).
      return z.literal([k.on, r.default].filter((v) => v !== undefined) as z.core.util.Literal[]);
    case "share":
      return z.number().min(0).max(1);
    case "text": {
      const parse = k.parse;
      return z.string().refine(
        (v) => {
          try {
            parse(v);
            return true;
          } catch {
            return false;
          }
        },
        { message: `expected ${k.shown}` },
      );
    }
  }
}

/**
 * A row's value as a study file writes it (as typed on the flag: a number, a choice, `true` for a
 * switch, a share or a percentage), described for editors; `help` defaults to the flag and command.
 */
export function flagValueSchema(r: Option<unknown>, command: string): z.ZodType {
  const k = r.kind;
  const help = r.help ?? (r.about !== undefined ? `${r.about} (--${r.name})` : `--${r.name} of s3gym ${command}${r.default === undefined ? "" : ` (default ${JSON.stringify(r.default)})`}`);
  switch (k.type) {
    case "int":
      return z.number().int().min(k.range.min).max(k.range.max).describe(help);
    case "choice":
      return z.enum(k.choices as [string, ...string[]]).describe(help);
    case "switch":
      return z.boolean().describe(`${help}; true turns it on`);
    case "share":
      return z.union([z.number().min(0).max(1), z.string().regex(/^\s*\d+(\.\d+)?\s*%\s*$/, "must be a share 0..1 or a percentage such as 50%")]).describe(`${help}: ${k.note}`);
    case "text":
      // Checked by the row's own parser when the study's values go through the flags' one path.
      return z.string().min(1).describe(`${help}: ${k.shown}`);
  }
}

/** A study value (flagValueSchema's) as the flag text it stands for: `true` -> the switch given, anything else its string. */
export function flagText(value: unknown): string | boolean {
  return value === true ? true : String(value);
}

/**
 * An integer flag value inside `range`, or a UsageError naming the flag and the range. Every
 * numeric flag has an upper bound: `--timeout-ms 9999999999` used to be clamped by Node to 1 ms
 * (every call timed out) and `--explore-episodes 100000000` ran V8 out of memory.
 */
export function intFlag(flag: string, value: string | undefined, fallback: number | undefined, range: IntRange): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${flag} is required (an integer in ${range.min}..${range.max})`);
    return fallback;
  }
  const t = value.trim();
  const n = Number(t);
  if (!/^-?\d+$/.test(t) || (n < 0 && range.min >= 0)) {
    // "non-negative" only where 0 is allowed: for a range from 1 up the range itself says it.
    const kind = range.min === 0 ? "a non-negative integer" : "an integer";
    throw new UsageError(`--${flag} must be ${kind} in ${range.min}..${range.max}, got '${value}'`);
  }
  if (n < range.min) throw new UsageError(`--${flag} must be at least ${range.min} (range ${range.min}..${range.max}), got ${t}${range.why !== undefined ? `: ${range.why}` : ""}`);
  if (n > range.max) throw new UsageError(`--${flag} must be at most ${range.max} (range ${range.min}..${range.max}), got ${t}`);
  return n;
}

/** A non-negative integer flag value (at most `max`), or a UsageError naming the flag and the range. */
export function nonNegativeInt(flag: string, value: string | undefined, fallback?: number, max: number = Number.MAX_SAFE_INTEGER): number {
  return intFlag(flag, value, fallback, { min: 0, max });
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** A finite number flag (may be negative or fractional). */
export function numberFlag(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!NUMBER.test(value.trim()) || !Number.isFinite(Number(value))) throw new UsageError(`--${flag} must be a number, got '${value}'`);
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

/** A share flag (`--max-bad-replies`): a share in [0, 1] (`0.5`) or a percentage (`50%`); `note` says what the ends mean. */
export function shareFlag(flag: string, value: string | undefined, fallback: number, note: string): number {
  if (value === undefined) return fallback;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value);
  const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--${flag} must be a share in 0..1 or a percentage 0%..100% (${note}), got '${value}'`);
  return n;
}

/** A text row's parse for a value taken as typed (a path, a selector, a spec): the row's reader checks it where it is used. */
export const asGiven = (v: string): string => v;

/** A comma list flag's items, trimmed, empty items dropped, in the order given (duplicates kept). */
export function listOf(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A comma list flag's items, trimmed, empty items and duplicates dropped, in the order given. */
export function listItems(value: string): string[] {
  return [...new Set(listOf(value))];
}

/** A repeatable flag whose values may each be a comma list (`--data a,b --data c`): every item, in order. */
export function repeatedList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap(listOf);
}

/** A required comma list flag (`--models a,b`): its items, or a UsageError when it is absent or empty. */
export function commaList(flag: string, value: string | undefined): string[] {
  if (value === undefined) throw new UsageError(`--${flag} is required`);
  const items = listItems(value);
  if (items.length === 0) throw new UsageError(`--${flag} is empty`);
  return items;
}

/** The fields of `S` that no row covers (`never` when every field has one). */
export type MissingRows<S, Covered> = Exclude<keyof S, Covered>;

/**
 * `rows` unchanged, checked at compile time to hold a row for every field of `S`: a field without a
 * row makes the call fail to compile, naming the field (for tables kept as a list, whose order matters).
 */
export function rowsCovering<S>() {
  return <R extends { key: keyof S }>(rows: readonly R[], ..._missing: [MissingRows<S, R["key"]>] extends [never] ? [] : [missing: MissingRows<S, R["key"]>]): readonly R[] => rows;
}

/** An int row's range (for a command that reads the row's flag with intFlag, e.g. a required integer). */
export function intRange(r: Option<unknown>): IntRange {
  if (r.kind.type !== "int") throw new Error(`--${r.name} is not an integer flag`);
  return r.kind.range;
}
