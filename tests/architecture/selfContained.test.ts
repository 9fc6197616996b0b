/**
 * The test suite reads nothing outside the repository (issue 31): a user's clone has no `../shared`
 * beside it, so a fixture path that climbs out of the repository fails `npm test` there while passing
 * here and in a CI that lays the shared folder beside the clone. Every relative path literal in tests/
 * and bench/ is resolved against its file (and against the repository root, for process.cwd() joins)
 * and must stay inside the repository; a literal "shared" path segment after ".." is refused outright.
 * .ci/run also runs the fixture-reading tests from a clone with no ../shared beside it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** Relative path literals (starting ./ or ../, climbing somewhere) in a source text, with their line numbers. */
function pathLiterals(text: string): { line: number; value: string }[] {
  const out: { line: number; value: string }[] = [];
  const lines = text.split("\n");
  lines.forEach((l, i) => {
    for (const m of l.matchAll(/(["'`])((?:(?!\1)[^\\\n]|\\.)*)\1/g)) {
      const v = m[2]!;
      // Relative paths only: an absolute URL path like "/../etc/passwd" is a traversal test's input.
      if (/^\.\.?[/\\]\S*$/.test(v) && v.includes("..")) out.push({ line: i + 1, value: v });
    }
  });
  return out;
}

/**
 * "file:line: 'literal' points outside the repository (...)" for every literal of a file that resolves
 * outside `root`, or that spells a parent-directory "shared" folder as separate join() arguments.
 */
export function outsideReads(file: string, text: string, root: string): string[] {
  const bad: string[] = [];
  const rel = relative(root, file);
  const outside = (p: string) => {
    const r = relative(root, p);
    return r === ".." || r.startsWith(`..${sep}`);
  };
  for (const { line, value } of pathLiterals(text)) {
    const fromFile = resolve(dirname(file), value);
    const fromRoot = resolve(root, value);
    if (outside(fromFile) && outside(fromRoot)) {
      bad.push(`${rel}:${line}: '${value}' points outside the repository; copy what it reads into tests/fixtures/ and read it there`);
    }
  }
  text.split("\n").forEach((l, i) => {
    if (/["']\.\.["']\s*,\s*["']shared["']/.test(l)) {
      bad.push(`${rel}:${i + 1}: join("..", "shared", ...) reads the folder beside the clone; copy what it reads into tests/fixtures/ and read it there`);
    }
  });
  return bad;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules" && e.name !== "fixtures") out.push(...sources(p));
    } else if (/\.(ts|mts|mjs|js)$/.test(e.name)) out.push(p);
  }
  return out;
}

describe("the test suite is self-contained", () => {
  it("flags hand-made reads outside the repository and passes reads inside it", () => {
    const root = "/repo";
    const file = "/repo/tests/games/x.test.ts";
    expect(outsideReads(file, `const D = new URL("../../../shared/fixtures/korgym/", import.meta.url);`, root)).toHaveLength(1);
    expect(outsideReads(file, `const F = join(process.cwd(), "..", "shared", "fixtures", "a.jsonl");`, root)).toHaveLength(1);
    expect(outsideReads(file, `readFileSync('../../../../etc/passwd')`, root)).toHaveLength(1);
    expect(outsideReads(file, `const D = new URL("../fixtures/korgym/", import.meta.url);`, root)).toEqual([]);
    expect(outsideReads(file, `import { x } from "../../src/games/registry.js";`, root)).toEqual([]);
    // A prose mention in a comment is not a read (no string literal).
    expect(outsideReads(file, `// the spec (../shared/spec/toolchain.md) says so`, root)).toEqual([]);
  });

  it("no file in tests/ or bench/ reads a path outside the repository", () => {
    const bad = [...sources(join(ROOT, "tests")), ...sources(join(ROOT, "bench"))].filter((f) => f !== import.meta.filename).flatMap((f) => outsideReads(f, readFileSync(f, "utf8"), ROOT));
    expect(bad).toEqual([]);
  });
});
