import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AtomicLineFile, isAtomicTemp, writeFileAtomic } from "../../src/util/atomicWrite.js";

describe("atomic writes", () => {
  it("replaces a file and leaves no temporary behind", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3gym-atomic-"));
    const p = join(dir, "manifest.json");
    writeFileSync(p, "old");
    writeFileAtomic(p, "new\n");
    writeFileAtomic(p, "newer\n", { durable: false });
    expect(readFileSync(p, "utf8")).toBe("newer\n");
    expect(readdirSync(dir)).toEqual(["manifest.json"]);
  });

  it("a line file appears only on commit, and abort keeps the old file", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3gym-atomic-"));
    const p = join(dir, "sft.jsonl");
    const f = new AtomicLineFile(p);
    f.write('{"a":1}');
    expect(existsSync(p)).toBe(false);
    f.commit();
    expect(readFileSync(p, "utf8")).toBe('{"a":1}\n');
    const g = new AtomicLineFile(p);
    g.write('{"b":2}');
    g.abort();
    expect(readFileSync(p, "utf8")).toBe('{"a":1}\n');
    expect(readdirSync(dir)).toEqual(["sft.jsonl"]);
  });

  it("recognises its temporaries, including the older pid-only form", () => {
    expect(isAtomicTemp(".manifest.json.tmp-999999")).toBe(true);
    expect(isAtomicTemp(".manifest.json.tmp-12-3")).toBe(true);
    expect(isAtomicTemp("manifest.json")).toBe(false);
    expect(isAtomicTemp(".lock")).toBe(false);
  });
});
