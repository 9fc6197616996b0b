/**
 * reproduce's run watcher on a hand-written data directory: one line per run that finishes (not for
 * runs complete before the phase), the progress line's counts and ETA, the bar on a TTY, and the
 * filter of a `s3gym run` child's output.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatSeconds, paceEta, RunWatch, runOutputFilter } from "../../src/cli/reproduce/reproduceProgress.js";
import { tempDir } from "../analysis/helpers.js";

function manifest(data: string, id: string, status: string, ended: boolean, wallS = 2.5, endedAt = "2026-01-01T00:00:00Z"): void {
  mkdirSync(join(data, "runs", id), { recursive: true });
  writeFileSync(join(data, "runs", id, "manifest.json"), JSON.stringify({ run_id: id, status, ended_at: ended ? endedAt : null, wall_s: wallS }));
}

function episodes(data: string, id: string, n: number, torn = false): void {
  mkdirSync(join(data, "runs", id), { recursive: true });
  appendFileSync(join(data, "runs", id, "episodes.jsonl"), "{}\n".repeat(n) + (torn ? '{"half' : ""));
}

function sink(isTTY = false) {
  const s = { text: "", isTTY, columns: 200, write: (t: string) => ((s.text += t), true) };
  return s;
}

describe("RunWatch", () => {
  it("prints a line per run as it finishes, counts episodes incrementally, and a progress line", () => {
    const data = tempDir("s3gym-watch-");
    // a: complete before the phase; b and c run now.
    manifest(data, "a", "complete", true);
    episodes(data, "a", 4);
    manifest(data, "b", "running", false);
    let now = 0;
    const out = sink();
    const w = new RunWatch(
      data,
      [
        { runId: "a", totalEpisodes: 4 },
        { runId: "b", totalEpisodes: 4 },
        { runId: "c", totalEpisodes: 2 },
      ],
      out,
      {
        label: "matrix",
        now: () => now,
        pollMs: 0,
        lineEveryMs: 10_000,
      },
    );
    w.start();
    expect(out.text).toBe("[reproduce] matrix: 1 of 3 runs already complete in the data directory (resumed, not replayed)\n");
    out.text = "";

    episodes(data, "b", 1, true); // one whole line and a torn one
    now = 5_000;
    w.poll();
    expect(out.text).toBe(""); // nothing finished, and no progress line before 10 s
    // 5 of 10 episodes (a's 4 + b's 1); 1 played in 5 s, 5 left -> ETA 25 s
    expect(w.progressText()).toBe("matrix: 1/3 runs, 5/10 episodes (50%), 5.0 s, ETA 25.0 s");

    appendFileSync(join(data, "runs", "b", "episodes.jsonl"), '"}\n{}\n{}\n'); // the torn line completes, +2
    manifest(data, "b", "complete", true, 3.25);
    manifest(data, "c", "failed", true, 61);
    episodes(data, "c", 1);
    now = 12_000;
    w.poll();
    expect(out.text).toBe(
      "[reproduce] matrix run 2/3 complete: b (4 episodes, 3.3 s)\n" +
        "[reproduce] matrix run 3/3 failed: c (1 episodes, 1m01s)\n" +
        "[reproduce] matrix: 3/3 runs, 9/10 episodes (90%), 12.0 s, ETA 2.4 s\n",
    );
    out.text = "";
    w.stop();
    expect(out.text).toBe(""); // no bar to clear, nothing new
  });

  it("does not list a run that had ended before the phase (another schedule's, a failed one) until it ends again", () => {
    const data = tempDir("s3gym-watch-");
    // d: complete under a shorter schedule (2 of this phase's 4 episodes); e: failed earlier.
    manifest(data, "d", "complete", true);
    episodes(data, "d", 2);
    manifest(data, "e", "failed", true);
    const out = sink();
    const w = new RunWatch(
      data,
      [
        { runId: "d", totalEpisodes: 4 },
        { runId: "e", totalEpisodes: 4 },
      ],
      out,
      { label: "runs", now: () => 0, pollMs: 0, lineEveryMs: 10_000 },
    );
    w.start();
    w.poll();
    // The phase's job for d was refused, say: nothing was played, nothing is listed.
    expect(out.text).toBe("");
    // e is resumed and ends again (a new end time): now it is listed.
    episodes(data, "e", 4);
    manifest(data, "e", "complete", true, 4, "2026-01-02T00:00:00Z");
    w.poll();
    expect(out.text).toBe("[reproduce] runs run 1/2 complete: e (4 episodes, 4.0 s)\n");
    w.stop();
  });

  it("on a TTY draws one bar in place and clears it before a run's line", () => {
    const data = tempDir("s3gym-watch-");
    const out = sink(true);
    const w = new RunWatch(data, [{ runId: "x", totalEpisodes: 4 }], out, { label: "training", now: () => 1000, pollMs: 0 });
    w.start();
    episodes(data, "x", 2);
    w.poll();
    expect(out.text).toBe("\r\x1b[2K[############------------] training: 0/1 runs, 2/4 episodes (50%), 0.0 s");
    out.text = "";
    manifest(data, "x", "complete", true);
    w.poll();
    expect(out.text.startsWith("\r\x1b[2K[reproduce] training run 1/1 complete: x (2 episodes, 2.5 s)\n\r\x1b[2K[############------------]")).toBe(true);
    out.text = "";
    w.stop();
    expect(out.text.endsWith("\r\x1b[2K")).toBe(true);
  });
});

describe("runOutputFilter", () => {
  it("keeps only the result lines of runs that did not complete, and drops the shard banner", () => {
    const out = runOutputFilter("stdout");
    expect(out("chess__none__x\tcomplete\t4/4 checkpoints ok\t10 calls\t0 in / 0 out")).toBe(false);
    expect(out("chess__none__x\tfailed\t1/4 checkpoints ok\t10 calls\t0 in / 0 out\tretries exhausted")).toBe(true);
    expect(out("total\t63 runs, 63 complete\t100 calls\t0 in / 0 out")).toBe(false);
    const err = runOutputFilter("stderr");
    expect(err("s3gym run: shard 1/2: 32 of 63 runs")).toBe(false);
    expect(err("s3gym run: --data holds runs written with other protocol numbers")).toBe(true);
  });
});

describe("formatSeconds", () => {
  it("never prints 60 seconds in a minute (a measured ETA once read 9m60s)", () => {
    expect(formatSeconds(12.34)).toBe("12.3 s");
    expect(formatSeconds(59.96)).toBe("1m00s");
    expect(formatSeconds(599.6)).toBe("10m00s");
    expect(formatSeconds(3725)).toBe("62m05s");
  });
});

describe("paceEta (the progress line's ETA, replayed by bench/reproduceEta.ts)", () => {
  it("is the episodes left at the mean time per episode played so far", () => {
    // 10 of 40 episodes in 60 s: 6 s each, 30 left -> 180 s.
    expect(paceEta(60, 10, 40)).toBe(180);
    expect(paceEta(60, 0, 40)).toBeNull(); // nothing played yet: no pace
    expect(paceEta(60, 40, 40)).toBeNull(); // nothing left
  });
});
