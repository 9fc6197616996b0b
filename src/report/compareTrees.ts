/**
 * Byte comparison of two output folders: what `reproduce` checks after the notebooks ran (they must
 * leave the report's files unchanged and write no others), and what `s3gym notebooks --compare`
 * checks between engines (the same tables and figures, byte for byte).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** Sub-folders of an output folder that hold notebook copies and exports, not report files. */
export const NOT_REPORT_FILES: ReadonlySet<string> = new Set(["notebooks", "exports", "quick"]);

/** sha256 of every file under `dir` (recursively), by path relative to `dir`, skipping the named sub-folders. */
export function hashTree(dir: string, skip: ReadonlySet<string> = NOT_REPORT_FILES): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const rel = relative(dir, p);
      if (e.isDirectory()) {
        if (!skip.has(rel)) walk(p);
      } else if (e.isFile()) out.set(rel, createHash("sha256").update(readFileSync(p)).digest("hex"));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

export interface TreeDiff {
  /** In both, different bytes. */
  changed: string[];
  /** In `after` only. */
  added: string[];
  /** In `before` only. */
  missing: string[];
}

/** Files that differ between two hash maps (sorted paths). */
export function diffTrees(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): TreeDiff {
  const changed = [...before].filter(([f, h]) => after.has(f) && after.get(f) !== h).map(([f]) => f);
  const added = [...after.keys()].filter((f) => !before.has(f));
  const missing = [...before.keys()].filter((f) => !after.has(f));
  return { changed: changed.sort(), added: added.sort(), missing: missing.sort() };
}
