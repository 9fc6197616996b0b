/**
 * The import graph of src/, read with the TypeScript compiler API (no regular expressions): every
 * static import, `export ... from`, `import type`, `import x = require(...)` and dynamic `import("...")`
 * with a string literal, resolved to the file it names. Imports of packages (not relative) are skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

export interface ImportEdge {
  /** The importing file, relative to the repository root with forward slashes (src/runner/loop/runLoop.ts). */
  from: string;
  /** The imported file, same form. */
  to: string;
  /** The specifier as written ("../pathways/history.js"). */
  specifier: string;
  /** 1-based line of the import. */
  line: number;
}

/** Every .ts file under dir, sorted (so messages and results are stable). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** The specifiers a file imports, with their lines, read from its syntax tree. */
export function importSpecifiers(path: string, text = readFileSync(path, "utf8")): { specifier: string; line: number }[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { specifier: string; line: number }[] = [];
  const add = (node: ts.Node, lit: ts.Expression | undefined) => {
    if (lit && ts.isStringLiteralLike(lit)) found.push({ specifier: lit.text, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node, node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal as ts.Expression);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Resolves a relative specifier the NodeNext way this project writes them (./x.js names ./x.ts). */
function resolveRelative(fromFile: string, specifier: string): string | null {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, join(base, "index.ts")];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

const posix = (p: string) => p.split(sep).join("/");

/** All relative imports of every file under root/src, resolved. Unresolvable ones are returned in `unresolved`. */
export function importGraph(root: string): { edges: ImportEdge[]; unresolved: ImportEdge[] } {
  const edges: ImportEdge[] = [];
  const unresolved: ImportEdge[] = [];
  for (const file of sourceFiles(join(root, "src"))) {
    for (const { specifier, line } of importSpecifiers(file)) {
      if (!specifier.startsWith(".")) continue;
      const target = resolveRelative(file, specifier);
      const edge = { from: posix(relative(root, file)), to: target ? posix(relative(root, target)) : specifier, specifier, line };
      (target ? edges : unresolved).push(edge);
    }
  }
  return { edges, unresolved };
}

/** The layer a file belongs to: its first folder under src/, or "" for a file directly in src/. */
export function layerOf(path: string): string {
  const parts = path.split("/");
  return parts[0] === "src" && parts.length > 2 ? parts[1] : "";
}
