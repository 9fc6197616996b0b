/**
 * `s3gym finetune --backend builtin`'s checkpoint is named by its content, and its content must not
 * depend on the folder the base checkpoint lives in: else the training loop of two clones of the kit
 * (different data paths) would write different checkpoints and train different Figure 7 curves.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { fineTuneBuiltin } from "../../src/training/builtinFineTune.js";

const example = JSON.stringify({
  messages: [
    { role: "user", content: "a step" },
    { role: "assistant", content: "Tactic: flat\nAnswer: 1 0\nScore: 1" },
  ],
});

describe("builtin fine-tune", () => {
  it("writes the same checkpoint from the same base content, wherever the base file's folder is", () => {
    const root = mkdtempSync(join(tmpdir(), "s3gym-ft-"));
    const sft = join(root, "sft.jsonl");
    writeFileSync(sft, `${example}\n${example}\n`);
    const first = fineTuneBuiltin({ train: sft, model: "builtin:learner", epochs: 1, outDir: join(root, "a", "checkpoints") });
    expect(basename(first.path)).toMatch(/^learner-[0-9a-f]{16}\.json$/);
    // The same base file in another folder (another clone, a moved data directory).
    const elsewhere = join(root, "b", "deeper", "checkpoints");
    mkdirSync(elsewhere, { recursive: true });
    copyFileSync(first.path, join(elsewhere, basename(first.path)));
    const fromA = fineTuneBuiltin({ train: sft, model: first.spec, epochs: 1, outDir: join(root, "a", "checkpoints") });
    const fromB = fineTuneBuiltin({ train: sft, model: `builtin:learner@${join(elsewhere, basename(first.path))}`, epochs: 1, outDir: elsewhere });
    expect(basename(fromB.path)).toBe(basename(fromA.path));
    expect(readFileSync(fromB.path, "utf8")).toBe(readFileSync(fromA.path, "utf8"));
    expect(JSON.parse(readFileSync(fromA.path, "utf8")).base).toBe(`builtin:learner@${basename(first.path)}`);
    // A base not named by its content keeps its path (its name alone says nothing of its content).
    const mine = join(root, "mine.json");
    copyFileSync(first.path, mine);
    expect(JSON.parse(readFileSync(fineTuneBuiltin({ train: sft, model: `builtin:learner@${mine}`, epochs: 1, outDir: root }).path, "utf8")).base).toBe(`builtin:learner@${mine}`);
  });

  it("reads the SFT file through the one JSONL reader: a bad line, mid-file or torn at the end, names file:line", () => {
    const root = mkdtempSync(join(tmpdir(), "s3gym-ft-"));
    const out = join(root, "checkpoints");
    const mid = join(root, "mid.jsonl");
    writeFileSync(mid, `${example}\n{not json\n${example}\n`);
    expect(() => fineTuneBuiltin({ train: mid, model: "builtin:learner", epochs: 1, outDir: out })).toThrow(`${mid}:2: not JSON`);
    const torn = join(root, "torn.jsonl");
    writeFileSync(torn, `${example}\n\n${example.slice(0, 30)}`);
    expect(() => fineTuneBuiltin({ train: torn, model: "builtin:learner", epochs: 1, outDir: out })).toThrow(`${torn}:3: not JSON`);
    // Blank lines, CRLF and a last line without its newline are read as examples.
    const loose = join(root, "loose.jsonl");
    writeFileSync(loose, `${example}\r\n\r\n${example}`);
    expect(fineTuneBuiltin({ train: loose, model: "builtin:learner", epochs: 1, outDir: out }).examples).toBe(2);
  });
});
