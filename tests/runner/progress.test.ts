import { describe, expect, it, vi } from "vitest";
import type { EpisodeRecord } from "../../src/logs/schema.js";
import { formatDuration, Progress } from "../../src/runner/progress.js";

const ep = (status: "ok" | "failed") => ({ status }) as EpisodeRecord;

describe("progress", () => {
  it("plain lines (not a TTY): periodic lines for runs that moved, and one line when a run ends", () => {
    vi.useFakeTimers();
    try {
      const out: string[] = [];
      let now = 0;
      const p = new Progress({ write: (t: string) => out.push(t), isTTY: false }, { intervalMs: 1000, now: () => now });
      p.runStarted("r1", { totalEpisodes: 10, doneEpisodes: 2, label: "snake/history/m" });
      p.step("r1", 1000, 20);
      now = 4000;
      p.episodeDone("r1", ep("ok"));
      p.episodeDone("r1", ep("failed"));
      vi.advanceTimersByTime(1000);
      expect(out).toHaveLength(1);
      // 2 episodes in 4 s this invocation, 6 left: 12 s.
      expect(out[0]).toBe("[s3gym] snake/history/m: 4/10 episodes (4/10 episodes, 1 steps, tokens 1.0k in / 20 out, 1 failed) ETA 12s\n");
      vi.advanceTimersByTime(1000);
      expect(out).toHaveLength(1); // nothing moved
      p.runEnded("r1", "failed");
      expect(out[1]).toMatch(/^\[s3gym\] snake\/history\/m: failed \(4\/10 episodes/);
      p.close();
    } finally {
      vi.useRealTimers();
    }
  });
  it("a live bar per run on a TTY, redrawn in place", () => {
    vi.useFakeTimers();
    try {
      const out: string[] = [];
      const p = new Progress({ write: (t: string) => out.push(t), isTTY: true, columns: 100, rows: 30 }, { now: () => 0 });
      p.runStarted("a", { totalEpisodes: 4, doneEpisodes: 0, label: "snake/none/m" });
      p.runStarted("b", { totalEpisodes: 4, doneEpisodes: 2, label: "tetris/memory/m" });
      vi.advanceTimersByTime(250);
      expect(out[0]).toContain(`snake/none/m    [${"-".repeat(20)}] 0/4 ep`);
      expect(out[0]).toContain("[##########----------] 2/4 ep");
      expect(out[0]).toContain("0/2 runs finished");
      p.episodeDone("a", ep("ok"));
      vi.advanceTimersByTime(250);
      expect(out[1]!.startsWith("\x1b[3A")).toBe(true); // cursor back over the 3 lines drawn
      p.close();
    } finally {
      vi.useRealTimers();
    }
  });
  it("off prints nothing; durations read well", () => {
    const out: string[] = [];
    const p = new Progress({ write: (t: string) => out.push(t), isTTY: true }, { mode: "off" });
    p.runStarted("a", { totalEpisodes: 1, doneEpisodes: 0, label: "x" });
    p.runEnded("a", "complete");
    p.close();
    expect(out).toEqual([]);
    expect([formatDuration(5_000), formatDuration(125_000), formatDuration(7_380_000)]).toEqual(["5s", "2m05s", "2h03m"]);
  });
});
