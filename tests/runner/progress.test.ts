import { describe, expect, it, vi } from "vitest";
import type { EpisodeRecord } from "../../src/logs/schema.js";
import { formatDuration, Progress } from "../../src/runner/monitor/progress.js";

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

describe("progress a person can plan by (issue 26)", () => {
  const explore = { status: "ok", phase: "explore" } as EpisodeRecord;
  const evalEp = { status: "ok", phase: "eval" } as EpisodeRecord;

  it("a run's ETA follows its exploration chain, not the burst of concurrent eval episodes", async () => {
    const { ProgressState } = await import("../../src/runner/monitor/progress.js");
    let now = 0;
    const st = new ProgressState(() => now);
    // 4 exploration episodes, checkpoints 0 and 4 with 3 eval episodes each: 10 episodes.
    st.runStarted("r", { totalEpisodes: 10, doneEpisodes: 0, label: "x", exploreLeft: 4 });
    now = 1_000;
    for (let i = 0; i < 3; i++) st.episodeDone("r", evalEp); // checkpoint 0's eval, concurrent, fast
    now = 60_000;
    st.episodeDone("r", explore); // one exploration episode: 60 s
    const r = st.runs.get("r")!;
    // 3 exploration episodes left at 60 s each, then the last checkpoint's eval (about one more): 240 s.
    expect(st.etaMs(r)).toBe(240_000);
    // The old pace (4 episodes in 60 s, 6 left) said 90 s.
    now = 240_000;
    for (let i = 0; i < 3; i++) st.episodeDone("r", explore);
    // Exploration over: what is left of one episode's time (60 s mean, all of it still ahead).
    expect(st.etaMs(r)).toBe(60_000);
    now = 270_000;
    expect(st.etaMs(r)).toBe(30_000);
  });

  it("the matrix ETA is never below the slowest run's", async () => {
    const { ProgressState } = await import("../../src/runner/monitor/progress.js");
    let now = 0;
    const st = new ProgressState(() => now);
    st.runStarted("slow", { totalEpisodes: 12, doneEpisodes: 0, label: "slow", exploreLeft: 10 });
    st.runStarted("fast", { totalEpisodes: 100, doneEpisodes: 0, label: "fast" });
    now = 10_000;
    st.episodeDone("slow", explore);
    for (let i = 0; i < 99; i++) st.episodeDone("fast", evalEp);
    const slow = st.etaMs(st.runs.get("slow")!)!;
    expect(slow).toBe(100_000); // 9 left + 1, at 10 s
    // Pace alone: 100 episodes in 10 s, 12 left: 1.2 s.
    expect(st.matrix().etaMs).toBe(slow);
  });

  it("the retry line says which kinds", async () => {
    const { formatRetries, ProgressState, formatRunProgress } = await import("../../src/runner/monitor/progress.js");
    expect(formatRetries(7, { http_429: 6, http_5xx: 1 })).toBe("7 retries: 6x429, 1x5xx");
    expect(formatRetries(2, {})).toBe("2 retries");
    const st = new ProgressState(() => 0);
    st.runStarted("r", { totalEpisodes: 2, doneEpisodes: 0, label: "x" });
    st.call("r", { retries: 2, retry_kinds: ["http_429", "bad_response"], cost_usd: null, cached: false } as never);
    expect(formatRunProgress(st.runs.get("r")!, null)).toContain("2 retries: 1xerror body, 1x429");
  });
});
