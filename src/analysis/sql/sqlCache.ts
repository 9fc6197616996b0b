/**
 * The cache of loaded log databases (`s3gym sql`, `s3gym export`): loading validates every line, so a
 * second query on the same logs reuses the database the first one built instead of loading again.
 *
 * Where: `<os temp dir>/s3gym-sql-cache-<uid>/` (or the caller's folder), never inside a data
 * directory, and only a folder this user owns and nobody else can write (a database another user
 * planted there would answer queries). One entry per list of data directories (in order: the order
 * decides ties between shards), named by a hash of that list; inside it one folder per fingerprint.
 *
 * When it answers: only when the fingerprint matches, i.e. the same run directories hold the same
 * files with the same size, modification and change times and inode, and the kit's tables are the
 * same (their definitions and CACHE_FORMAT are hashed in). Any appended line, new run, removed file
 * or schema change gives another fingerprint, and the logs are loaded again (all of them: the
 * loader's merging rules span runs and shards). A fingerprint taken again after a load that differs
 * from the one before it (a run still writing) is not stored, so a cache never holds a load of files
 * that changed under it.
 *
 * Clearing: delete the folder (`cacheRoot()`); `s3gym sql --no-cache` neither reads nor writes it.
 * Each build prunes the entry's older fingerprints and the entries whose data directories are gone.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { discoverRuns } from "../../logs/reader.js";
import { manifestPath, runFile } from "../../logs/runDir.js";
import { RUN_FILES } from "../../logs/schema.js";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { pidIsAlive } from "../../util/pid.js";
import type { Option } from "../../util/options.js";
import { TABLE_NAMES, tableDefinitions } from "./sqlSchema.js";

/** The file in a build folder naming the fingerprint it is built from. */
const BUILDING = "building";

/** Bumped whenever the way tables are built changes without a change of their columns. */
const CACHE_FORMAT = 2;

/** `--no-cache` (`sql`, `export` to parquet/csv): load the logs afresh and keep nothing in this cache. */
export const NO_CACHE_OPTION: Option<boolean> = {
  name: "no-cache",
  kind: { type: "switch", on: true },
  default: false,
  help: "load the logs afresh and keep nothing (by default the loaded tables are kept in the SQL cache\n                  and answer the next query while no log file changed)",
};

/** The default cache folder of this user. */
export function cacheRoot(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : userInfo().username;
  return join(tmpdir(), `s3gym-sql-cache-${uid}`);
}

/** What a cache entry remembers beside its database. */
const CacheMeta = z.object({
  /** The data directories (resolved), in order. */
  dirs: z.array(z.string()),
  fingerprint: z.string(),
  warnings: z.array(z.string()),
  rows: z.record(z.string(), z.number()),
});
export type CacheMeta = z.infer<typeof CacheMeta>;

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");

/**
 * The fingerprint of what a load would read: every run directory's files (size, mtime, ctime,
 * inode; a missing file too), and the tables' definitions. Costs one stat per file, no reading.
 */
export function fingerprint(dataDirs: readonly string[]): string {
  const h = createHash("sha256");
  h.update(`format ${CACHE_FORMAT}\n${JSON.stringify(tableDefinitions())}\n`);
  for (const loc of discoverRuns(dataDirs)) {
    h.update(`run ${loc.runDir}\n`);
    const files = [manifestPath(loc.runDir), ...Object.keys(RUN_FILES).map((k) => runFile(loc.runDir, k as keyof typeof RUN_FILES))];
    for (const f of files) {
      const st = statSync(f, { throwIfNoEntry: false, bigint: true });
      h.update(st === undefined ? `${f} -\n` : `${f} ${st.size} ${st.mtimeNs} ${st.ctimeNs} ${st.ino}\n`);
    }
  }
  return h.digest("hex");
}

/** The folder of this user's cache, made private; null (no caching) when it is not safely ours. */
function privateRoot(root: string): string | null {
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const st = lstatSync(root);
    const mine = typeof process.getuid !== "function" || st.uid === process.getuid();
    return st.isDirectory() && !st.isSymbolicLink() && mine && (st.mode & 0o022) === 0 ? root : null;
  } catch {
    return null;
  }
}

/** A usable cache entry: its database file and what was said when it was loaded. */
/** How old a build folder without a pid in its name (an earlier version's) must be to count as abandoned. */
const LEGACY_BUILD_AGE_MS = 60 * 60 * 1000;

/**
 * Removes the build folders `<prefix><pid>-XXXXXX` under `dir` whose process is gone (a build killed
 * mid-way, e.g. by kill -9, leaves its partial database there), and those of earlier versions
 * (`<prefix>XXXXXX`, no pid) untouched for an hour by `now` (the wall clock, or a test's). A live
 * process's build is left alone.
 */
export function removeDeadBuilds(dir: string, prefix: string, now: () => number = Date.now): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)-/.exec(name.slice(prefix.length));
    const path = join(dir, name);
    try {
      if (m) {
        const pid = Number(m[1]);
        if (pid === process.pid || pidIsAlive(pid)) continue;
      } else if (now() - statSync(path).mtimeMs < LEGACY_BUILD_AGE_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // best effort: a folder another process is removing too
    }
  }
}

export interface CacheHit {
  file: string;
  meta: CacheMeta;
}

/** One list of data directories' place in the cache. */
export class SqlCache {
  private constructor(
    private readonly root: string,
    readonly dirs: string[],
  ) {}

  /** The cache for these data directories under `root`; null when the folder cannot be ours. */
  static open(dataDirs: readonly string[], root: string = cacheRoot()): SqlCache | null {
    const safe = privateRoot(root);
    return safe === null
      ? null
      : new SqlCache(
          safe,
          dataDirs.map((d) => resolve(d)),
        );
  }

  private get entry(): string {
    return join(this.root, sha(JSON.stringify(this.dirs)).slice(0, 24));
  }

  /** The entry built from exactly these files, if there is one. */
  lookup(fp: string): CacheHit | null {
    const dir = join(this.entry, fp.slice(0, 32));
    const file = join(dir, "logs.duckdb");
    try {
      const meta = CacheMeta.parse(JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")));
      if (meta.fingerprint !== fp || !existsSync(file) || TABLE_NAMES.some((t) => meta.rows[t] === undefined)) return null;
      return { file, meta };
    } catch {
      return null;
    }
  }

  /**
   * A fresh private folder to build a database in (under the cache, so the final move is a rename),
   * marked with the fingerprint it is built from (`building`), so that another process asking for the
   * same files waits for it (`buildUnderWay`) instead of loading them a second time beside it.
   */
  buildDir(fp?: string): string {
    mkdirSync(this.entry, { recursive: true, mode: 0o700 });
    removeDeadBuilds(this.entry, ".build-");
    const dir = mkdtempSync(join(this.entry, `.build-${process.pid}-`));
    if (fp !== undefined) writeFileAtomic(join(dir, BUILDING), fp);
    return dir;
  }

  /**
   * Whether another live process is building this entry from files with fingerprint `fp` (its build
   * folder's `building` mark): then its database, stored under `fp`, answers as soon as it is done.
   */
  buildUnderWay(fp: string): boolean {
    let names: string[];
    try {
      names = readdirSync(this.entry);
    } catch {
      return false;
    }
    return names.some((name) => {
      const m = /^\.build-(\d+)-/.exec(name);
      if (!m || Number(m[1]) === process.pid || !pidIsAlive(Number(m[1]))) return false;
      try {
        return readFileSync(join(this.entry, name, BUILDING), "utf8") === fp;
      } catch {
        return false; // a build of an earlier version (no mark), or one just stored or removed
      }
    });
  }

  /**
   * The entry of `fp` once another live process's build of the same files (buildUnderWay) is stored;
   * null at once when there is none, or when that build ends without storing it (killed, failed, or
   * its files changed under it): the caller then loads the logs itself. Polls every `pollMs`.
   */
  async awaitBuild(fp: string, pollMs = 250): Promise<CacheHit | null> {
    for (;;) {
      const hit = this.lookup(fp);
      if (hit !== null) return hit;
      if (!this.buildUnderWay(fp)) return this.lookup(fp);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /**
   * Stores a database built in `buildDir()` under its fingerprint (the meta written last, so a half
   * stored entry is never a hit). Returns the stored file, or null when another process stored the
   * same entry first (the caller keeps using its own build).
   */
  store(built: string, meta: CacheMeta): string | null {
    writeFileAtomic(join(built, "meta.json"), JSON.stringify(meta) + "\n");
    const dir = join(this.entry, meta.fingerprint.slice(0, 32));
    try {
      renameSync(built, dir);
    } catch {
      return null;
    }
    this.prune(dir);
    return join(dir, "logs.duckdb");
  }

  /** Removes this entry's other fingerprints and other entries whose data directories are gone. */
  private prune(keep: string): void {
    const quiet = (f: () => void): void => {
      try {
        f();
      } catch {
        /* pruning is best effort: a folder in use by another process is left for the next build */
      }
    };
    for (const name of readdirSync(this.entry)) {
      const p = join(this.entry, name);
      if (p !== keep && !name.startsWith(".build-")) quiet(() => rmSync(p, { recursive: true, force: true }));
    }
    for (const entry of readdirSync(this.root)) {
      const p = join(this.root, entry);
      if (p === this.entry) continue;
      quiet(() => {
        const metas = readdirSync(p)
          .filter((n) => !n.startsWith(".build-"))
          .map((n) => join(p, n, "meta.json"));
        const dirs = metas.length > 0 && existsSync(metas[0] as string) ? CacheMeta.parse(JSON.parse(readFileSync(metas[0] as string, "utf8"))).dirs : [];
        if (dirs.length > 0 && dirs.some((d) => !existsSync(d))) rmSync(p, { recursive: true, force: true });
      });
    }
  }
}
