/**
 * The one-way layer order of docs/architecture.md, enforced: every relative import of src/ is read
 * with the TypeScript compiler API (tests/architecture/imports.ts) and checked against the order in
 * tests/architecture/layers.json, written once. A folder may import itself and the folders below it;
 * files directly in src/ (the package entry) sit on top. Any folder cycle is reported too.
 */
import { mkdtempSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importGraph, layerOf, type ImportEdge } from "./imports.js";
import layers from "./layers.json" with { type: "json" };

const ROOT = join(import.meta.dirname, "..", "..");

/** "src/a/x.ts:3 -> src/b/y.ts (a may not import b: b is above a in the layer order)" per bad import. */
export function layerViolations(edges: readonly ImportEdge[], order: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    if (from === to) continue;
    const a = from === "" ? order.length : order.indexOf(from);
    const b = to === "" ? order.length : order.indexOf(to);
    const where = `${e.from}:${e.line} -> ${e.to} ('${e.specifier}')`;
    if (a < 0) out.push(`${where}: folder src/${from}/ is not in the layer order of tests/architecture/layers.json: add it there (and to docs/architecture.md)`);
    else if (b < 0) out.push(`${where}: folder src/${to}/ is not in the layer order of tests/architecture/layers.json: add it there (and to docs/architecture.md)`);
    else if (b > a) out.push(`${where}: ${from || "src/"} may not import ${to || "src/"}, which sits above it (order, bottom first: ${order.join(" < ")})`);
  }
  return out;
}

/** Every cycle of the graph whose nodes are `nodeOf(file)` (as "a -> b -> a"), by depth-first search; self-edges skipped. */
function cycles(edges: readonly ImportEdge[], nodeOf: (file: string) => string): string[] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = nodeOf(e.from);
    const b = nodeOf(e.to);
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    next.get(a)!.add(b);
  }
  const found = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const done = new Set<string>();
  const visit = (n: string): void => {
    stack.push(n);
    onStack.add(n);
    for (const m of [...(next.get(n) ?? [])].sort()) {
      if (onStack.has(m)) found.add([...stack.slice(stack.indexOf(m)), m].join(" -> "));
      else if (!done.has(m)) visit(m);
    }
    stack.pop();
    onStack.delete(n);
    done.add(n);
  };
  for (const n of [...next.keys()].sort()) if (!done.has(n)) visit(n);
  return [...found];
}

/** Every cycle between folders. */
export function folderCycles(edges: readonly ImportEdge[]): string[] {
  return cycles(edges, (f) => layerOf(f) || "src");
}

/**
 * Every cycle between files, type-only imports included: a circle closed by a type is still two
 * files that cannot be read (or moved) one without the other (architecture.md: 0 file circles).
 */
export function fileCycles(edges: readonly ImportEdge[]): string[] {
  return cycles(edges, (f) => f);
}

describe("the layer order of src/", () => {
  const { edges, unresolved } = importGraph(ROOT);

  it("reads a real graph (the reader is not silently empty)", () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(edges.some((e) => e.from === "src/runner/loop/runLoop.ts" && e.to.startsWith("src/logs/"))).toBe(true);
  });

  it("every relative import resolves to a file", () => {
    expect(unresolved.map((e) => `${e.from}:${e.line} -> '${e.specifier}'`)).toEqual([]);
  });

  it("no import runs against the order", () => {
    expect(layerViolations(edges, layers.order)).toEqual([]);
  });

  it("no two folders import each other, directly or around a loop", () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it("no two files import each other, directly or around a loop (type-only imports count)", () => {
    expect(fileCycles(edges)).toEqual([]);
  });

  it("every folder of src/ has a place in the order", () => {
    const folders = new Set(edges.flatMap((e) => [layerOf(e.from), layerOf(e.to)]).filter((l) => l !== ""));
    expect([...folders].filter((f) => !layers.order.includes(f))).toEqual([]);
  });
});

/** Folders of dir (itself included) holding more than `max` files directly, as "src/x/ (n files)". */
export function crowdedFolders(dir: string, max: number, name = "src"): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).length;
  const out = files > max ? [`${name}/ (${files} files)`] : [];
  for (const e of entries) if (e.isDirectory()) out.push(...crowdedFolders(join(dir, e.name), max, `${name}/${e.name}`));
  return out;
}

describe("the rooms of src/", () => {
  it("no folder of src/ holds more than 20 files directly (split a crowded one into sub-folders by job)", () => {
    expect(crowdedFolders(join(ROOT, "src"), 20)).toEqual([]);
  });

  it("the check sees a crowded folder", () => {
    const root = mkdtempSync(join(tmpdir(), "s3gym-rooms-"));
    mkdirSync(join(root, "a", "b"), { recursive: true });
    for (let i = 0; i < 3; i++) writeFileSync(join(root, "a", "b", `f${i}.ts`), "");
    writeFileSync(join(root, "a", "g.ts"), "");
    expect(crowdedFolders(root, 2)).toEqual(["src/a/b/ (3 files)"]);
    expect(crowdedFolders(root, 3)).toEqual([]);
  });
});

describe("the checks themselves", () => {
  const order = ["util", "games", "runner"];
  const edge = (from: string, to: string): ImportEdge => ({ from, to, specifier: "../x.js", line: 7 });

  it("name the file and the import that runs up", () => {
    expect(layerViolations([edge("src/games/a.ts", "src/runner/b.ts"), edge("src/runner/b.ts", "src/util/c.ts")], order)).toEqual([
      "src/games/a.ts:7 -> src/runner/b.ts ('../x.js'): games may not import runner, which sits above it (order, bottom first: util < games < runner)",
    ]);
  });

  it("flag a folder missing from the order, and the entry file importing down is fine", () => {
    expect(layerViolations([edge("src/index.ts", "src/runner/b.ts")], order)).toEqual([]);
    expect(layerViolations([edge("src/extra/a.ts", "src/util/b.ts")], order)[0]).toContain("src/extra/ is not in the layer order");
  });

  it("find a loop through three folders", () => {
    const e = [edge("src/a/1.ts", "src/b/1.ts"), edge("src/b/1.ts", "src/c/1.ts"), edge("src/c/1.ts", "src/a/2.ts")];
    expect(folderCycles(e)).toEqual(["a -> b -> c -> a"]);
    expect(folderCycles(e.slice(0, 2))).toEqual([]);
  });

  it("find a file circle inside one folder, and none where the arrows run one way", () => {
    const e = [edge("src/agent/x.ts", "src/agent/y.ts"), edge("src/agent/y.ts", "src/agent/x.ts"), edge("src/agent/y.ts", "src/util/z.ts")];
    expect(fileCycles(e)).toEqual(["src/agent/x.ts -> src/agent/y.ts -> src/agent/x.ts"]);
    expect(folderCycles(e)).toEqual([]);
    expect(fileCycles([e[0]!, e[2]!])).toEqual([]);
  });

  it("read every import form through the compiler API, not comments or strings", () => {
    const root = mkdtempSync(join(tmpdir(), "s3gym-layers-"));
    mkdirSync(join(root, "src", "games"), { recursive: true });
    mkdirSync(join(root, "src", "runner"), { recursive: true });
    for (const n of ["a", "b", "c", "d", "e"]) writeFileSync(join(root, "src", "runner", `${n}.ts`), "export const x = 1;\nexport type T = number;\n");
    writeFileSync(
      join(root, "src", "games", "g.ts"),
      [
        '// import { x } from "../runner/zzz.js";',
        "const s = 'import { y } from \"../runner/zzz.js\"';",
        'import { x } from "../runner/a.js";',
        'import type { T } from "../runner/b.js";',
        'export { x as y } from "../runner/c.js";',
        'export const later = () => import("../runner/d.js");',
        'export type U = typeof import("../runner/e.js");',
        "export const z: T = x + s.length;",
      ].join("\n"),
    );
    const g = importGraph(root);
    expect(g.edges.map((e) => `${e.line} ${e.to}`)).toEqual(["3 src/runner/a.ts", "4 src/runner/b.ts", "5 src/runner/c.ts", "6 src/runner/d.ts", "7 src/runner/e.ts"]);
    expect(g.unresolved).toEqual([]);
    expect(layerViolations(g.edges, order)).toHaveLength(5);
  });
});
