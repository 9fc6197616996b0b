import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlSyntaxError, readJsonlLines, type TornLine } from "../../src/util/jsonl.js";

const dir = mkdtempSync(join(tmpdir(), "s3gym-jsonl-"));
let n = 0;
function file(text: string): string {
  const p = join(dir, `f${n++}.jsonl`);
  writeFileSync(p, text);
  return p;
}
function read(text: string, opts: { unterminatedIsTorn?: boolean; chunkBytes?: number } = {}) {
  const torn: TornLine[] = [];
  const lines = [...readJsonlLines(file(text), { ...opts, onTorn: (t) => torn.push(t) })];
  return { lines: lines.map((l) => [l.line, l.text, l.json]), torn };
}

describe("readJsonlLines", () => {
  it("yields parsed lines with their numbers and text, skipping blank ones", () => {
    expect(read('{"a":1}\n\n[2]\n  \n"x"\n')).toEqual({
      lines: [
        [1, '{"a":1}', { a: 1 }],
        [3, "[2]", [2]],
        [5, '"x"', "x"],
      ],
      torn: [],
    });
  });

  it("reads the same across chunk borders, multi-byte characters included", () => {
    const text = ['{"s":"héllo wörld ✓"}', '{"n":12345}', '{"s":"ü"}'].join("\n") + "\n";
    for (const chunkBytes of [1, 2, 3, 5, 7, 64]) expect(read(text, { chunkBytes }).lines.map((l) => l[2])).toEqual([{ s: "héllo wörld ✓" }, { n: 12345 }, { s: "ü" }]);
  });

  it("decodes a line with broken UTF-8 as that line alone decodes, whatever the chunk size", () => {
    // A truncated 3-byte sequence (E2 82) just before the newline, a lone continuation byte mid-line,
    // and a blank line: each line's text is what Buffer#toString gives for its bytes on their own.
    const lines = [Buffer.from([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0x61, 0xe2, 0x82]), Buffer.from('{"t":"b'), Buffer.from([0x80]), Buffer.from('c"}')];
    const bytes = Buffer.concat([lines[0]!, Buffer.from('"}\n\n'), lines[1]!, lines[2]!, lines[3]!, Buffer.from("\n")]);
    const p = join(dir, `f${n++}.jsonl`);
    writeFileSync(p, bytes);
    const alone = [Buffer.concat([lines[0]!, Buffer.from('"}')]).toString("utf8"), Buffer.concat([lines[1]!, lines[2]!, lines[3]!]).toString("utf8")];
    for (const chunkBytes of [1, 2, 3, 4, 6, 9, 1024]) {
      const got = [...readJsonlLines(p, { chunkBytes })].map((l) => [l.line, l.text]);
      expect(got, `chunk ${chunkBytes}`).toEqual([
        [1, alone[0]],
        [3, alone[1]],
      ]);
    }
  });

  it("takes an unparsable last line for torn: not yielded, reported with its line", () => {
    const r = read('{"a":1}\n{"a":2\n\n');
    expect(r.lines).toEqual([[1, '{"a":1}', { a: 1 }]]);
    expect(r.torn).toHaveLength(1);
    expect(r.torn[0]!.line).toBe(2);
    expect(r.torn[0]!.detail).toMatch(/invalid JSON/);
  });

  it("throws naming file and line for an unparsable line that is not the last", () => {
    const p = file('{"a":1}\n{"a":\n{"a":3}\n');
    let err: unknown;
    try {
      [...readJsonlLines(p)];
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JsonlSyntaxError);
    expect((err as JsonlSyntaxError).line).toBe(2);
    expect((err as JsonlSyntaxError).message).toContain(`${p}:2:`);
  });

  it("keeps a parsable last line without newline, unless told it is torn (resume appends after it)", () => {
    expect(read('{"a":1}\n{"a":2}').lines).toHaveLength(2);
    const strict = read('{"a":1}\n{"a":2}', { unterminatedIsTorn: true });
    expect(strict.lines).toHaveLength(1);
    expect(strict.torn.map((t) => t.line)).toEqual([2]);
  });

  it("reads an empty file as nothing", () => {
    expect(read("")).toEqual({ lines: [], torn: [] });
  });
});
