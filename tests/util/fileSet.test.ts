/**
 * Replacing a set of files as one step (src/util/fileSet.ts, issue 12 item 9): a writer stopped at
 * any point (an injected throw, or a real SIGKILL in a child process) leaves the old set, or a
 * journal that the next writer finishes into the new set; files the old set owned and the new one
 * lacks go, files nobody listed stay, and a journal naming a path outside the folder is refused.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isSafeRelative, recoverFileSet, replaceFileSet } from "../../src/util/fileSet.js";

const WRITER = fileURLToPath(new URL("../redteam/fixtures/setWriter.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const OLD = ["tables/a.csv", "tables/b.csv", "fig_old.svg", "report.json"];
const NEW = ["tables/a.csv", "tables/b.csv", "fig_new.svg", "report.json"];

/** A folder holding the old set (content `old <name>`) and a file no set owns. */
function folderWithOldSet(): string {
  const dir = mkdtempSync(join(tmpdir(), "s3gym-fileset-"));
  for (const f of OLD) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), `old ${f}\n`);
  }
  mkdirSync(join(dir, "notebooks"));
  writeFileSync(join(dir, "notebooks", "mine.ipynb"), "{}");
  return dir;
}

/** Every file under `dir` with its content, hidden ones included. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
    const p = join(dir, f);
    try {
      out[f] = readFileSync(p, "utf8");
    } catch {
      // a folder
    }
  }
  return out;
}

const writeNew = async (stage: string): Promise<string[]> => {
  for (const f of NEW) {
    mkdirSync(dirname(join(stage, f)), { recursive: true });
    writeFileSync(join(stage, f), `new ${f}\n`);
  }
  return NEW;
};

/** The tree once the new set is in place: hand-written, not computed by the code under test. */
const EXPECTED_NEW = {
  "fig_new.svg": "new fig_new.svg\n",
  "notebooks/mine.ipynb": "{}",
  "report.json": "new report.json\n",
  "tables/a.csv": "new tables/a.csv\n",
  "tables/b.csv": "new tables/b.csv\n",
};

describe("replacing a file set", () => {
  it("puts the new set in place, removes what the old set owned and the new lacks, keeps other files", async () => {
    const dir = folderWithOldSet();
    await replaceFileSet(dir, "report", writeNew, () => OLD);
    expect(tree(dir)).toEqual(EXPECTED_NEW);
  });

  it("a writer stopped before the journal leaves the old set byte for byte", async () => {
    const dir = folderWithOldSet();
    const before = tree(dir);
    const stop = () => {
      throw new Error("killed");
    };
    await expect(replaceFileSet(dir, "report", writeNew, () => OLD, { faults: { beforeJournal: stop } })).rejects.toThrow("killed");
    expect(tree(dir)).toEqual(before);
  });

  it("a writer stopped between two moves leaves a journal that the next writer finishes first", async () => {
    const dir = folderWithOldSet();
    const stop = (n: number) => {
      if (n === 2) throw new Error("killed");
    };
    await expect(replaceFileSet(dir, "report", writeNew, () => OLD, { faults: { afterMove: stop } })).rejects.toThrow("killed");
    // The mix a kill leaves on disk for an instant: two new tables, the old figure and index.
    expect(readFileSync(join(dir, "tables", "b.csv"), "utf8")).toBe("new tables/b.csv\n");
    expect(readFileSync(join(dir, "report.json"), "utf8")).toBe("old report.json\n");
    expect(existsSync(join(dir, ".report-swap.json"))).toBe(true);
    const said = recoverFileSet(dir, "report");
    expect(said).toContain("4 files");
    expect(tree(dir)).toEqual(EXPECTED_NEW);
  });

  it("after a real SIGKILL between two moves, the next writer recovers the killed set and then writes its own", async () => {
    const dir = folderWithOldSet();
    const r = spawnSync(process.execPath, ["--import", "tsx", WRITER, dir, "3", OLD.join(","), ...NEW], { cwd: ROOT, encoding: "utf8" });
    expect(r.signal).toBe("SIGKILL");
    expect(readFileSync(join(dir, "fig_new.svg"), "utf8")).toBe("new fig_new.svg\n");
    expect(readFileSync(join(dir, "report.json"), "utf8")).toBe("old report.json\n");
    const stages = readdirSync(dir).filter((f) => f.startsWith(".report-stage-"));
    expect(stages).toHaveLength(1);
    // The next writer writes a smaller set: the killed set's files it lacks go too (its report.json owns them).
    const warnings: string[] = [];
    const written = await replaceFileSet(
      dir,
      "report",
      async (stage) => {
        writeFileSync(join(stage, "report.json"), '{"files":["report.json"]}\n');
        return ["report.json"];
      },
      // What the index on disk owns once any interrupted swap is finished (the killed writer's set).
      () => (readFileSync(join(dir, "report.json"), "utf8") === "new report.json\n" ? NEW : OLD),
      { onWarning: (w) => warnings.push(w) },
    );
    expect(written).toEqual(["report.json"]);
    expect(warnings.join("\n")).toContain("interrupted");
    expect(tree(dir)).toEqual({ "notebooks/mine.ipynb": "{}", "report.json": '{"files":["report.json"]}\n' });
  });

  it("removes a staging folder of a writer that died before its journal, keeps a live writer's", () => {
    const dir = folderWithOldSet();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    mkdirSync(join(dir, `.report-stage-${dead}`));
    mkdirSync(join(dir, `.report-stage-${process.ppid}`));
    expect(recoverFileSet(dir, "report")).toBeNull();
    expect(existsSync(join(dir, `.report-stage-${dead}`))).toBe(false);
    expect(existsSync(join(dir, `.report-stage-${process.ppid}`))).toBe(true);
  });

  it("refuses a journal that names a path outside the folder, and removes nothing", () => {
    const dir = folderWithOldSet();
    const outside = join(dirname(dir), `${dir.split("/").pop()}-victim`);
    writeFileSync(outside, "keep me");
    writeFileSync(join(dir, ".report-swap.json"), JSON.stringify({ stage: ".report-stage-1", files: [], remove: [`../${outside.split("/").pop()}`] }));
    expect(() => recoverFileSet(dir, "report")).toThrow(/not a report swap journal \(remove\.0: not a safe relative path\)/);
    expect(readFileSync(outside, "utf8")).toBe("keep me");
    expect(isSafeRelative("tables/a.csv")).toBe(true);
    for (const bad of ["../x", "/etc/passwd", "a/../../x", "", ".hidden", "a//b"]) expect(isSafeRelative(bad), bad).toBe(false);
  });
});
