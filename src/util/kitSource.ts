/**
 * Where the running kit's code came from, for provenance: the git commit of a checkout and whether it
 * had uncommitted changes, or nulls when the kit was installed from a tarball (no `.git` at its root).
 *
 * The commit is read from the `.git` files themselves (HEAD, the ref, packed-refs; a worktree's
 * `gitdir:` file and its `commondir`), so no process is spawned for it. Only the dirty flag needs
 * git (`git status --porcelain`), run at most once per process and root; when git is absent, fails or
 * takes too long, the flag is null and nothing else changes: provenance never fails a run.
 *
 * Only the kit's own root is looked at, never a folder above it: a kit installed under a user's
 * project (node_modules/s3gym) must not report the user's commit as its own.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

export interface KitSource {
  /** The checkout's HEAD commit (40 hex digits), or null: not a git checkout, or HEAD unreadable. */
  commit: string | null;
  /** True when tracked or untracked (not ignored) files differ from the commit; null when unknown. */
  dirty: boolean | null;
}

const cache = new Map<string, KitSource>();

/** The source of the kit rooted at `root` (the folder holding its package.json); cached per root. */
export function kitSource(root: string, git: (root: string) => boolean | null = gitDirty): KitSource {
  const key = resolve(root);
  const known = cache.get(key);
  if (known) return known;
  const commit = headCommit(key);
  const source: KitSource = { commit, dirty: commit === null ? null : git(key) };
  cache.set(key, source);
  return source;
}

/** Forgets what kitSource found (tests that change a checkout between two reads). */
export function clearKitSourceCache(): void {
  cache.clear();
}

const HEX40 = /^[0-9a-f]{40}$/;

/** HEAD's commit read from the files under `<root>/.git`; null when there is none or it cannot be read. */
export function headCommit(root: string): string | null {
  try {
    const dotGit = join(root, ".git");
    if (!existsSync(dotGit)) return null;
    let gitDir = dotGit;
    if (statSync(dotGit).isFile()) {
      // A worktree or submodule: `gitdir: <path>`.
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
      if (!m) return null;
      gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(root, m[1]!);
    }
    // A worktree's refs live in the main repository's git folder (`commondir`).
    const commonFile = join(gitDir, "commondir");
    const common = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, "utf8").trim()) : gitDir;
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    if (HEX40.test(head)) return head;
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
    if (!ref || ref.includes("..")) return null;
    for (const dir of [gitDir, common]) {
      const file = join(dir, ref);
      if (existsSync(file)) {
        const value = readFileSync(file, "utf8").trim();
        return HEX40.test(value) ? value : null;
      }
    }
    const packed = join(common, "packed-refs");
    if (!existsSync(packed)) return null;
    for (const line of readFileSync(packed, "utf8").split("\n")) {
      const [hash, name] = line.trim().split(" ");
      if (name === ref && hash !== undefined && HEX40.test(hash)) return hash;
    }
    return null;
  } catch {
    return null;
  }
}

/** `git status --porcelain` in `root`, once: true when it lists anything; null when git cannot say. */
function gitDirty(root: string): boolean | null {
  try {
    // GIT_OPTIONAL_LOCKS=0: a status must not take the index lock of a checkout another process uses.
    const r = spawnSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8", timeout: 10_000, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" }, stdio: ["ignore", "pipe", "ignore"] });
    if (r.error || r.status !== 0 || typeof r.stdout !== "string") return null;
    return r.stdout.trim().length > 0;
  } catch {
    return null;
  }
}
