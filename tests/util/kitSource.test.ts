/**
 * kitSource reads a checkout's commit from the .git files (no git process), for a plain repository,
 * a worktree (gitdir file + commondir), packed refs and a detached HEAD; gives nulls outside a
 * checkout (a tarball install) and a null dirty flag when git cannot tell, never an error.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clearKitSourceCache, headCommit, kitSource } from "../../src/util/kitSource.js";

const A = "a".repeat(40);
const B = "0123456789abcdef0123456789abcdef01234567";
const tmp = () => mkdtempSync(join(tmpdir(), "s3kit-"));

function repo(head: string, files: Record<string, string> = {}): string {
  const root = tmp();
  mkdirSync(join(root, ".git", "refs", "heads"), { recursive: true });
  writeFileSync(join(root, ".git", "HEAD"), head);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(root, ".git", f), text);
  return root;
}

describe("headCommit", () => {
  it("follows HEAD to a loose ref, to packed-refs, or reads a detached HEAD", () => {
    expect(headCommit(repo("ref: refs/heads/main\n", { "refs/heads/main": `${A}\n` }))).toBe(A);
    expect(headCommit(repo("ref: refs/heads/dev\n", { "packed-refs": `# pack-refs with: peeled\n${A} refs/heads/main\n${B} refs/heads/dev\n` }))).toBe(B);
    expect(headCommit(repo(`${B}\n`))).toBe(B);
  });

  it("reads a worktree: the gitdir file, its HEAD, the refs in the common folder", () => {
    const main = repo("ref: refs/heads/main\n", { "refs/heads/main": `${A}\n` });
    mkdirSync(join(main, ".git", "worktrees", "w"), { recursive: true });
    writeFileSync(join(main, ".git", "worktrees", "w", "HEAD"), "ref: refs/heads/w\n");
    writeFileSync(join(main, ".git", "worktrees", "w", "commondir"), "../..\n");
    writeFileSync(join(main, ".git", "refs", "heads", "w"), `${B}\n`);
    const wt = tmp();
    writeFileSync(join(wt, ".git"), `gitdir: ${join(main, ".git", "worktrees", "w")}\n`);
    expect(headCommit(wt)).toBe(B);
  });

  it("null outside a checkout, for a ref that does not exist, and for garbage; never throws", () => {
    expect(headCommit(tmp())).toBeNull();
    expect(headCommit(repo("ref: refs/heads/gone\n"))).toBeNull();
    expect(headCommit(repo("ref: refs/heads/main\n", { "refs/heads/main": "not a hash\n" }))).toBeNull();
    expect(headCommit(repo("ref: ../../../etc/passwd\n"))).toBeNull();
  });

  it("agrees with git on this very checkout", () => {
    const git = spawnSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" });
    if (git.status !== 0) return; // no git on this machine: nothing to compare with
    expect(headCommit(process.cwd())).toBe(git.stdout.trim());
  });
});

describe("kitSource", () => {
  it("asks git for the dirty flag once per root, and not at all outside a checkout", () => {
    clearKitSourceCache();
    let asked = 0;
    const git = () => (asked++, true);
    const root = repo(`${A}\n`);
    expect(kitSource(root, git)).toEqual({ commit: A, dirty: true });
    expect(kitSource(root, git)).toEqual({ commit: A, dirty: true });
    expect(asked).toBe(1);
    expect(kitSource(tmp(), git)).toEqual({ commit: null, dirty: null });
    expect(asked).toBe(1);
  });

  it("git absent or failing: the commit stands, the dirty flag is null", () => {
    clearKitSourceCache();
    const root = repo(`${B}\n`);
    expect(kitSource(root, () => null)).toEqual({ commit: B, dirty: null });
    clearKitSourceCache();
    // The real probe in a folder git does not recognise as a repository (a hand-made .git): null, no throw.
    expect(kitSource(repo(`${A}\n`)).dirty).toBeNull();
  });
});
