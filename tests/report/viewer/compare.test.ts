/**
 * The viewer's run-against-run pages in headless Chromium: two hand-written runs on trust (success
 * threshold 40) whose evaluation scores are chosen so that exactly two episodes flip; the
 * comparison page lists those two first, links name runs by their run ids, and "side by side" opens
 * both trajectories at the first step where they differ. Also: the run page's cost table shows
 * numbers and counts, never "[object Object]".
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { successThreshold } from "../../../src/games/successThreshold.js";
import { buildViewer } from "../../../src/report/viewer/build.js";
import { browserSkipReason, launchChromium } from "../../helpers/browser.js";
import { writeHandRun, type HandStep } from "../../helpers/handLogs.js";
import { readChunk } from "./fixture.js";

// Page-side callbacks run in the browser; the kit's tsconfig has no DOM library (it would clash with Node's).
declare const window: any;

const skip = browserSkipReason();

/** An eval episode of trust whose score is `score`: five steps alike, then a sixth whose observation and action carry `tag` (where two runs may differ). */
function episode(checkpoint: number, episode: number, seed: number, score: number, tag: string): { phase: "eval"; checkpoint: number; episode: number; seed: number; steps: HandStep[] } {
  return {
    phase: "eval",
    checkpoint,
    episode,
    seed,
    steps: [
      ...Array.from({ length: 5 }, (_, k) => ({ observation: `Round ${k + 1} of 6`, response: "Answer: cooperate\nScore: 1", action: "cooperate", self_score: 1, reward: 1, feedback: "ok" })),
      { observation: `Round 6 of 6 (${tag})`, response: `Answer: ${tag}\nScore: 2`, action: tag, self_score: 2, reward: score - 5, feedback: "done" },
    ],
  };
}

/** Scores per (checkpoint, seed): A and B. Threshold 40: flips at (0, 5) and (1, 6). */
const SCORES: [number, number, number, number][] = [
  // checkpoint, seed, A, B
  [0, 5, 45, 10],
  [0, 6, 10, 12],
  [1, 5, 50, 41],
  [1, 6, 44, 20],
];

function handRun(data: string, model: string, which: 2 | 3, differ: (c: number, s: number) => boolean): string {
  const episodes = SCORES.map(([c, s, ...sc], k) => episode(c, k % 2, s, sc[which - 2] as number, differ(c, s) ? `cheat-${model}` : "cooperate"));
  const dir = writeHandRun(data, { game: "trust", pathway: "history", model, episodes });
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const id = { run_id: m.run_id, model, game: "trust", pathway: "history" };
  appendFileSync(
    join(dir, "checkpoints.jsonl"),
    [0, 1].map((c) => JSON.stringify({ ...id, checkpoint: c, scores: SCORES.filter((r) => r[0] === c).map((r) => r[which]), mean: null, status: "ok", reason: null })).join("\n") + "\n",
  );
  // A calls file with a count by kind (the cost table once printed it as [object Object]).
  writeFileSync(
    join(dir, "calls.jsonl"),
    JSON.stringify({
      run_id: m.run_id,
      purpose: "step",
      phase: "eval",
      checkpoint: 0,
      episode: 0,
      step: 0,
      tokens_in: 120,
      tokens_out: 7,
      tokens_cached: null,
      tokens_counted_by: "server",
      latency_ms: 3,
      retries: 0,
      cached: false,
      error: null,
      cost_usd: 0.0012,
    }) + "\n",
  );
  return String(m.run_id);
}

describe.skipIf(skip !== null)(`run against run in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let site: string;
  let url: string;
  let browser: Browser;
  let a: string;
  let b: string;
  const pageErrors: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), "s3compare-shots-"));

  beforeAll(async () => {
    expect(successThreshold("trust")).toBe(40);
    const data = mkdtempSync(join(tmpdir(), "s3compare-"));
    // The runs agree everywhere except the flipped episodes' second step, and (1, 5), which does not flip.
    a = handRun(data, "model-a", 2, (c, s) => (c === 0 && s === 5) || (c === 1 && s === 6) || (c === 1 && s === 5));
    b = handRun(data, "model-b", 3, (c, s) => (c === 0 && s === 5) || (c === 1 && s === 6) || (c === 1 && s === 5));
    site = mkdtempSync(join(tmpdir(), "s3compare-site-"));
    await buildViewer({ dataDirs: [data], outDir: site, B: 50, seed: 0 });
    url = pathToFileURL(join(site, "index.html")).href;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function open(hash: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${url}${hash}`);
    return page;
  }

  const enc = (id: string): string => encodeURIComponent(id);

  it("the overview's picker opens the comparison of two runs, linked by run id", async () => {
    const page = await open("");
    await page.waitForSelector('select[data-compare="a"]');
    await page.selectOption('select[data-compare="a"]', a);
    await page.selectOption('select[data-compare="b"]', b);
    await page.click("#compare-go");
    await page.waitForSelector("#pairs");
    expect(decodeURIComponent(await page.evaluate(() => window.location.hash))).toBe(`#/compare/${a}/${b}`);
    await page.close();
  });

  it("shows the flipped episodes first, with the paired scores per checkpoint and seed", async () => {
    const page = await open(`#/compare/${enc(a)}/${enc(b)}`);
    await page.waitForSelector("#pairs");
    const flips = await page.$$eval("#flips tbody tr", (rows) => rows.map((r) => r.getAttribute("data-key")));
    expect(flips).toEqual(["eval/0/5", "eval/1/6"]);
    const all = await page.$$eval("#pairs tbody tr", (rows) =>
      rows.map((r) => [r.getAttribute("data-key"), r.getAttribute("data-flip"), ...[...r.querySelectorAll("td")].slice(3, 8).map((td) => td.textContent)]),
    );
    expect(all).toEqual([
      ["eval/0/5", "1", "45", "solved", "10", "not solved", "-35"],
      ["eval/1/6", "1", "44", "solved", "20", "not solved", "-24"],
      ["eval/0/6", "0", "10", "not solved", "12", "not solved", "2"],
      ["eval/1/5", "0", "50", "solved", "41", "solved", "-9"],
    ]);
    // Links to the runs and to each pair use run ids (never a build's positions for the pair).
    const links = await page.$$eval("a.pairlink", (els) => els.map((e) => e.getAttribute("href")));
    expect(links[0]).toBe(`#/compare/${enc(a)}/${enc(b)}/ep/eval/0/5`);
    await page.screenshot({ path: join(shots, "compare.png"), fullPage: true });
    await page.close();
  });

  it("side by side opens both trajectories at the first step where they differ", async () => {
    const page = await open(`#/compare/${enc(a)}/${enc(b)}`);
    await page.waitForSelector("a.pairlink");
    await page.click("a.pairlink");
    await page.waitForSelector(".pairrow.firstdiff");
    expect(await page.getAttribute(".pairrow.firstdiff", "data-step")).toBe("5");
    expect(await page.textContent("#firstdiff")).toContain("They agree on 5 steps; the first difference is at step 6");
    const actions = await page.$$eval(".pairrow.firstdiff .step code", (els) => els.map((e) => e.textContent));
    expect(actions).toEqual(["cheat-model-a", "cheat-model-b"]);
    // The page is scrolled to the first difference (it is the last step here, so the page ends below it): in view, not at the top.
    const [top, scrollY, height] = await page.$eval(".pairrow.firstdiff", (el) => [el.getBoundingClientRect().top, window.scrollY, window.innerHeight]);
    expect(scrollY).toBeGreaterThan(0);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(height - 100);
    await page.screenshot({ path: join(shots, "pair.png") });
    await page.close();
  });

  it("a run page links to the comparison with each other run of its game", async () => {
    const i = readChunk(site, "index").runs.find((r: { run_id: string }) => r.run_id === a).i;
    const page = await open(`#/run/${i}`);
    await page.waitForSelector("#compare-peers");
    const hrefs = await page.$$eval("#compare-peers a", (els) => els.map((e) => e.getAttribute("href")));
    expect(hrefs).toEqual([`#/compare/${enc(a)}/${enc(b)}`]);
    await page.click("#compare-peers summary");
    await page.click("#compare-peers a");
    await page.waitForSelector("#flips");
    await page.close();
  });

  it("the run page's cost table shows numbers and counts, not [object Object]", async () => {
    const i = readChunk(site, "index").runs.find((r: { run_id: string }) => r.run_id === a).i;
    const page = await open(`#/run/${i}`);
    await page.waitForSelector(".kv");
    const text = (await page.textContent("main")) ?? "";
    expect(text).not.toContain("[object Object]");
    const rows = await page.$$eval(".kv tr", (trs) => Object.fromEntries(trs.map((tr) => [tr.querySelector("th")?.textContent, tr.querySelector("td")?.textContent])));
    expect(rows.tokens_counted_by).toBe("server: 1");
    expect(rows.cost_usd).toBe("0.0012");
    expect(rows.tokens_in).toBe("120");
    await page.close();
  });

  it("raised no page error", () => {
    expect(pageErrors).toEqual([]);
    console.log(`screenshots: ${shots}`);
  });
});
