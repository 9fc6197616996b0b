/**
 * Red team, issue 44 items 3 and 13: labels and model names holding control characters, raw HTML or
 * spreadsheet formulas.
 *
 * Before: `--label` of train-loop and `run --pathways training` took ESC and BEL as they were; logs
 * whose model name held ESC, NUL, BEL or FF made `report` fail ("SVG data parsing failed ... non-XML
 * character '\u{1b}'", exit 1, no tables); report Markdown kept a label's raw HTML; CSV cells started
 * with `=`, `+`, `-` or `@` (formula injection when opened in a spreadsheet).
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { csvText } from "../../src/util/escape/csv.js";
import { markdownCell } from "../../src/util/escape/markdown.js";
import { xmlSafeValues } from "../../src/util/escape/xml.js";

const EVIL = "ev\u001b]0;pwn\u0007il\u0000\u000c<img src=x onerror=alert(1)>|x";
const FORMULA = '=HYPERLINK("http://x","y")';
// Any C0 control but tab and newline, DEL, and the C1 range: none may reach a written text file.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts no control character reaches the output
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Rewrites the `model` field of every record of the runs whose id contains `runPart` (the logs as another tool, or a hand, wrote them). */
function renameModel(data: string, runPart: string, model: string): void {
  for (const run of readdirSync(join(data, "runs")).filter((r) => r.includes(runPart))) {
    for (const f of ["steps.jsonl", "episodes.jsonl", "checkpoints.jsonl"]) {
      const path = join(data, "runs", run, f);
      const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
      writeFileSync(path, lines.map((l) => JSON.stringify({ ...JSON.parse(l), model })).join("\n") + "\n");
    }
  }
}

async function cli(argv: string[]): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const spies = [process.stdout, process.stderr].map((s) => vi.spyOn(s, "write").mockImplementation((t: string | Uint8Array) => (out.push(String(t)), true)));
  try {
    return { code: await main(argv), text: out.join("") };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe("labels from logs are escaped for every output", () => {
  it("report on logs whose model names hold ESC, NUL, BEL, FF, raw HTML and a formula: exit 0, every table, no control character in any file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3-labels-"));
    const data = join(dir, "data");
    await writeSyntheticData(data, {
      models: ["m:a", "m:b"],
      games: ["nullify"],
      pathways: ["history"],
      exploreEpisodes: 3,
      checkpointEvery: 3,
      evalEpisodes: 2,
      stepsPerEpisode: [3, 5],
      failRate: 0,
    });
    renameModel(data, "m-a", EVIL);
    renameModel(data, "m-b", FORMULA);
    const out = join(dir, "out");
    const r = await cli(["report", "--data", data, "--out", out, "--bootstrap", "200"]);
    expect(r.code, r.text).toBe(0);
    // The terminal: escaped, never raw.
    expect(r.text).not.toMatch(CONTROL);
    const files = filesUnder(out);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { files: string[] };
    // Every table the report lists is there, with both models in main_results.
    expect(files.filter((f) => f.endsWith(".md")).length).toBeGreaterThan(3);
    for (const f of report.files) expect(files).toContain(join(out, f));
    const md = readFileSync(join(out, "tables", "main_results.md"), "utf8");
    expect(md).toContain("ev\\x1b]0;pwn\\x07il\\x00\\x0c&lt;img");
    expect(md).not.toContain("<img");
    const csv = readFileSync(join(out, "tables", "main_results.csv"), "utf8");
    // The formula is neutralised (a leading '), the label kept readable; negative numbers stay numbers.
    expect(csv).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csv.split("\n").some((l) => l.startsWith("="))).toBe(false);
    for (const f of files) {
      // Binary formats: their compressed streams hold every byte value by design (the PDF's text is in its fonts' glyph codes).
      if (f.endsWith(".png") || f.endsWith(".pdf")) continue;
      expect(CONTROL.test(readFileSync(f, "utf8")), f).toBe(false);
    }
    // The figures were drawn (the SVG step used to fail on the first ESC).
    expect(files.some((f) => f.endsWith(".svg"))).toBe(true);
  }, 120_000);

  it("the escaping rules, by hand", () => {
    expect(csvText("-0.25")).toBe("-0.25");
    expect(csvText("+1.5e-3")).toBe("+1.5e-3");
    expect(csvText("-2+3+cmd|' /C calc'!A0")).toBe("'-2+3+cmd|' /C calc'!A0");
    expect(csvText("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvText("\tx")).toBe("'\tx");
    expect(csvText("a\u001bb")).toBe("a\\x1bb");
    expect(markdownCell("p < 0.05 | <b>x</b>\nz")).toBe("p < 0.05 \\| &lt;b>x&lt;/b> z");
    const spec = { data: { values: [{ model: "a\u0000b", n: 1 }] }, title: "ok" };
    const safe = xmlSafeValues(spec);
    expect(safe.data.values[0]!.model).toBe("a\\x00b");
    expect(spec.data.values[0]!.model).toBe("a\u0000b");
    expect(xmlSafeValues(safe)).toBe(safe);
  });
});

describe("labels are checked at the door", () => {
  it.each([
    [["run", "--pathways", "training", "--checkpoints", "builtin:random", "--label", "ev\u001bil", "--games", "nullify"]],
    [["train-loop", "--model", "builtin:learner", "--trainer", "builtin", "--rounds", "1", "--games", "nullify", "--label", "a\u0007b"]],
  ])("%j is refused with exit 2, naming --label, shown escaped", async (argv) => {
    const dir = mkdtempSync(join(tmpdir(), "s3-label-door-"));
    const r = await cli([...argv, "--data", join(dir, "data")]);
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/--label '.*\\x(1b|07).*' holds a control or invisible character/);
    expect(r.text).not.toMatch(CONTROL);
  });
});

describe("Markdown escaping leaves code spans as they are", () => {
  it("escapes a tag outside a code span, not inside one", () => {
    expect(markdownCell("see `tables/<name>.md` and <b>x</b>")).toBe("see `tables/<name>.md` and &lt;b>x&lt;/b>");
  });
});
