/**
 * Replacing a SET of files in a folder as one step (used by `s3gym report`): the new set is written
 * into a staging folder inside the target folder (same filesystem, so every rename is atomic), a
 * journal `.<name>-swap.json` naming the files is written atomically, then the files are renamed
 * into place, files of the old set that the new one no longer has are removed, and the journal goes.
 *
 * A kill before the journal exists leaves the old set untouched (plus a staging folder the next
 * writer removes). A kill after it leaves the journal, and the next writer (or `recoverFileSet`)
 * finishes the swap before anything else, so the folder holds the old set or, once recovered, the
 * new one: never a mix that anyone builds on. The renames take milliseconds; writing the set (the
 * seconds-long part) happens entirely before the journal.
 *
 * Only files named in the journal are ever removed; the folder may hold other files (notebooks).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "./atomicWrite.js";
import { formatIssues } from "./zodIssues.js";
import { pidIsAlive } from "./pid.js";

/** A path relative to the set's folder: segments of safe characters, no `..`, never absolute. */
const RELATIVE = /^(?:[A-Za-z0-9_][A-Za-z0-9._-]*\/)*[A-Za-z0-9_][A-Za-z0-9._-]*$/;

export function isSafeRelative(path: string): boolean {
  return RELATIVE.test(path) && !path.split("/").includes("..");
}

const Journal = z
  .object({
    /** The staging folder's name, inside the set's folder. */
    stage: z.string().regex(/^\.[A-Za-z0-9._-]+-stage-\d+$/),
    /** The new set, relative to the folder, in the order they are moved (the index file last). */
    files: z.array(z.string().refine(isSafeRelative, "not a safe relative path")),
    /** Files of the old set that the new set does not have. */
    remove: z.array(z.string().refine(isSafeRelative, "not a safe relative path")),
  })
  .strict();
type Journal = z.infer<typeof Journal>;

/** Test hooks: a throw in one simulates a kill at that point (the process stops writing there). */
export interface FileSetFaults {
  /** Called once the staged set is complete, before the journal is written. */
  beforeJournal?: () => void;
  /** Called after the n-th file (1-based) has been moved into place. */
  afterMove?: (n: number, rel: string) => void;
}

function journalPath(dir: string, name: string): string {
  return join(dir, `.${name}-swap.json`);
}

function apply(dir: string, name: string, j: Journal, afterMove?: FileSetFaults["afterMove"]): void {
  const stage = join(dir, j.stage);
  let n = 0;
  for (const rel of j.files) {
    const from = join(stage, rel);
    // Already moved by the interrupted writer when the staged copy is gone.
    if (!existsSync(from)) continue;
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    renameSync(from, join(dir, rel));
    afterMove?.(++n, rel);
  }
  for (const rel of j.remove) {
    try {
      unlinkSync(join(dir, rel));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  rmSync(stage, { recursive: true, force: true });
  unlinkSync(journalPath(dir, name));
}

/**
 * Finishes a swap that a killed writer left (its journal), and removes staging folders of writers
 * that died before their journal. Returns a line saying what was recovered, or null.
 */
export function recoverFileSet(dir: string, name: string): string | null {
  if (!existsSync(dir)) return null;
  let said: string | null = null;
  const jp = journalPath(dir, name);
  if (existsSync(jp)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(jp, "utf8"));
    } catch (e) {
      throw new Error(`${jp}: not valid JSON (${(e as Error).message}); remove it to write a new ${name}`);
    }
    const parsed = Journal.safeParse(raw);
    if (!parsed.success) throw new Error(`${jp}: not a ${name} swap journal (${formatIssues(parsed.error, { max: 3 })}); remove it to write a new ${name}`);
    apply(dir, name, parsed.data);
    said = `finished the ${name} an interrupted run had begun to put in place (${parsed.data.files.length} files)`;
  }
  const prefix = `.${name}-stage-`;
  for (const f of readdirSync(dir)) {
    if (!f.startsWith(prefix)) continue;
    const pid = Number(f.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && pidIsAlive(pid)) continue; // another writer at work
    rmSync(join(dir, f), { recursive: true, force: true });
  }
  return said;
}

/**
 * Writes a new set into `dir` as one step. `write(stageDir)` writes every file of the set under the
 * staging folder and returns their paths relative to it (the index file last: it is moved last).
 * `previous()` lists the files of the old set (from its index, read after any interrupted swap was
 * finished); those the new set lacks are removed.
 */
export async function replaceFileSet(
  dir: string,
  name: string,
  write: (stageDir: string) => Promise<string[]>,
  previous: () => readonly string[],
  opts: { faults?: FileSetFaults; onWarning?: (w: string) => void } = {},
): Promise<string[]> {
  const faults = opts.faults ?? {};
  mkdirSync(dir, { recursive: true });
  const recovered = recoverFileSet(dir, name);
  if (recovered !== null) opts.onWarning?.(`${dir}: ${recovered}`);
  const old = previous();
  const stageName = `.${name}-stage-${process.pid}`;
  const stage = join(dir, stageName);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage);
  let files: string[];
  try {
    files = await write(stage);
    for (const f of files) if (!isSafeRelative(f)) throw new Error(`${name}: '${f}' is not a safe path inside ${dir}`);
    faults.beforeJournal?.();
  } catch (e) {
    rmSync(stage, { recursive: true, force: true });
    throw e;
  }
  const keep = new Set(files);
  const journal: Journal = { stage: stageName, files, remove: old.filter((f) => isSafeRelative(f) && !keep.has(f)) };
  writeFileAtomic(journalPath(dir, name), JSON.stringify(journal) + "\n");
  apply(dir, name, journal, faults.afterMove);
  return files;
}
