/**
 * The viewer in a real browser (headless Chromium): the overview lists every run, the run page shows
 * the report's numbers, the episode page shows each step's self-score and reward, hostile model text
 * never runs (and the page's policy would stop it if a renderer ever let it into markup), keyboard
 * navigation jumps to over-confident steps, and nothing outside the site is ever requested.
 */
import { mkdtempSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveSite } from "../../../src/cli/view/view.js";
import { loadDataset } from "../../../src/analysis/load/dataset.js";
import { buildReport } from "../../../src/report/buildReport.js";
import type { Report } from "../../../src/report/entries.js";
import { fmt3, fmtEstimate } from "../../../src/report/tables.js";
import { getGame } from "../../../src/games/registry.js";
import { buildViewer } from "../../../src/report/viewer/build.js";
import { rebuildStepMessages, loadRunLogs } from "../../../src/runner/resume/replay.js";
import { browserSkipReason, launchChromium } from "../../helpers/browser.js";
import { HAND_STEPS, makeViewerFixture, readChunk, type ViewerFixture } from "./fixture.js";

// Page-side callbacks run in the browser; the kit's tsconfig has no DOM library (it would clash with Node's).
declare const window: any;
declare const document: any;

const skip = browserSkipReason();
const B = 200;

describe.skipIf(skip !== null)(`s3gym view in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let fx: ViewerFixture;
  let site: string;
  let fileUrl: string;
  let httpUrl: string;
  let server: Server;
  let browser: Browser;
  let report: Report;
  const requested: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    fx = await makeViewerFixture();
    site = mkdtempSync(join(tmpdir(), "s3view-browser-"));
    await buildViewer({ dataDirs: [fx.main, fx.shard], outDir: site, B, seed: 0 });
    report = buildReport(await loadDataset([fx.main, fx.shard]), { B, seed: 0 });
    fileUrl = pathToFileURL(join(site, "index.html")).href;
    ({ server, url: httpUrl } = await serveSite(site, 0));
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
  });

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("request", (r) => requested.push(r.url()));
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(url);
    return page;
  }

  const handIndex = (): number => readChunk(site, "index").runs.find((r: { run_id: string }) => r.run_id === fx.handRunId).i;
  const handExplore = (): number => readChunk(site, `r${handIndex()}`).episodes.find((e: { phase: string }) => e.phase === "explore").j;

  it("the overview, opened from disk, lists every run; the filters narrow it", async () => {
    const page = await open(fileUrl);
    await page.waitForSelector("[data-run]");
    const ids = await page.$$eval("[data-run]", (els) => els.map((e) => e.getAttribute("data-run")));
    expect([...ids].sort()).toEqual([...fx.runIds].sort());
    await page.selectOption('select[data-filter="game"]', "trust");
    const games = await page.$$eval("[data-run]", (els) => els.length);
    expect(games).toBe(fx.runIds.filter((id) => id.startsWith("trust")).length);
    expect(await page.textContent("#shown")).toContain(`${games} of ${fx.runIds.length}`);
    // The matrix stays inside the window (a long model name in a filter may still widen the page a little): it scrolls in its own box.
    await page.setViewportSize({ width: 420, height: 700 });
    await page.selectOption('select[data-filter="game"]', "");
    const widths = await page.evaluate(() => {
      const w = document.querySelector(".matrixwrap") as unknown as { clientWidth: number; scrollWidth: number };
      return { page: document.documentElement.scrollWidth, box: w.clientWidth, content: w.scrollWidth };
    });
    expect(widths.box).toBeLessThanOrEqual(420);
    expect(widths.content).toBeGreaterThan(widths.box);
    // The hostile model name is shown as text.
    await page.selectOption('select[data-filter="game"]', "");
    expect(await page.textContent("main")).toContain(`hand<img src=x onerror="window.__pwned='model'">`);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    await page.close();
  });

  it("a run page's curve numbers equal report's", async () => {
    const row = report.tables.main_results.rows.find((r) => r.model === "builtin:heuristic" && r.game === "minesweeper" && r.pathway === "history")!;
    const i = readChunk(site, "index").runs.find((r: { run_id: string }) => r.run_id === row.runs[0]).i;
    const page = await open(`${httpUrl}#/run/${i}`);
    await page.waitForSelector("#metrics");
    const metrics = await page.$$eval("#metrics td", (tds) => tds.map((t) => t.textContent));
    expect(metrics).toEqual([row.avg, row.max, row.auc_plus, row.naba].map(fmtEstimate));
    const curve = await page.$$eval("#curve tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    const series = report.curves.find((c) => c.model === row.model && c.game === row.game && c.pathway === row.pathway)!;
    expect(curve).toEqual(series.points.map((p) => [String(p.x), fmt3(p.y), fmt3(p.lo), fmt3(p.hi)]));
    expect(curve.length).toBeGreaterThan(1);
    await page.close();
  });

  it("an episode page shows the self-score and reward of each step, and the exact prompt", async () => {
    const i = handIndex();
    const page = await open(`${fileUrl}#/run/${i}/ep/${handExplore()}`);
    await page.waitForSelector(".step");
    const s = await page.$$eval('[data-field="self_score"]', (els) => els.map((e) => e.textContent));
    const r = await page.$$eval('[data-field="reward"]', (els) => els.map((e) => e.textContent));
    expect(s).toEqual(HAND_STEPS.map((h) => (h.s === null ? "(none)" : String(h.s))));
    expect(r).toEqual(HAND_STEPS.map((h) => String(h.r)));
    const over = await page.$$eval(".step", (els) => els.map((e) => e.getAttribute("data-over")));
    expect(over).toEqual(HAND_STEPS.map((h) => (h.over ? "1" : "0")));
    // Steps count from 1, as the observation does ("Step 1 of N"); the log's step 0 is "Step 1".
    expect(await page.$eval("#step-0 h3", (e) => e.firstChild?.textContent)).toBe("Step 1");
    // The reasoning is collapsed.
    expect(await page.$eval("#step-1 details.reasoning", (d) => (d as unknown as { open: boolean }).open)).toBe(false);
    // The prompt of step 1, rebuilt from the logs, as the runner's replay builds it.
    await page.click("#step-1 .prompt-button");
    await page.waitForSelector("#step-1 .msg");
    const shown = await page.$$eval("#step-1 .msg", (els) => els.map((e) => [e.querySelector(".role")!.textContent, e.querySelector("pre")!.textContent]));
    const expected = rebuildStepMessages(loadRunLogs(join(fx.main, "runs", fx.handRunId)), getGame("trust"), { phase: "explore", checkpoint: null, episode: 1, step: 1 });
    expect(shown).toEqual(expected.map((m) => [m.role, m.content]));
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    await page.close();
  });

  it("injected <script>, <img onerror> and javascript: links do not execute, and the policy would stop them", async () => {
    for (const base of [fileUrl, httpUrl]) {
      const page = await open(`${base}#/run/${handIndex()}/ep/${handExplore()}`);
      await page.waitForSelector("#step-1");
      const text = await page.textContent("#step-1");
      expect(text).toContain(`<script>window.__pwned = "script"</script>`);
      expect(text).toContain(`<img src=x onerror="window.__pwned='img'">`);
      expect(await page.$$eval("img", (els) => els.length)).toBe(0);
      expect(await page.$$eval("a", (els) => els.filter((a) => !(a.getAttribute("href") ?? "").startsWith("#/")).length)).toBe(0);
      expect(await page.$("#evil")).toBeNull();
      await page.click("#step-1 .prompt-button");
      await page.waitForSelector("#step-1 .msg");
      await page.waitForTimeout(100);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      // Defence in depth: markup forced into the page by hand still cannot run under the page's CSP.
      await page.evaluate(() => {
        document.body.insertAdjacentHTML("beforeend", `<img src="x" onerror="window.__pwned='forced-img'"><a id="forced" href="javascript:window.__pwned='forced-link'">x</a>`);
        const s = document.createElement("script");
        s.textContent = "window.__pwned = 'forced-script'";
        document.body.appendChild(s);
      });
      await page.click("#forced").catch(() => undefined);
      await page.waitForTimeout(200);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      await page.close();
    }
  });

  it("n / p jump between over-confident steps, e to the next parse error", async () => {
    const page = await open(`${fileUrl}#/run/${handIndex()}/ep/${handExplore()}`);
    await page.waitForSelector(".step");
    const current = (): Promise<string | null> => page.$eval(".step.current", (e) => e.getAttribute("data-step")).catch(() => null);
    const overSteps = HAND_STEPS.flatMap((h, k) => (h.over ? [String(k)] : []));
    expect(overSteps).toEqual(["1", "4"]);
    await page.keyboard.press("n");
    expect(await current()).toBe("1");
    await page.keyboard.press("n");
    expect(await current()).toBe("4");
    await page.keyboard.press("n");
    expect(await current()).toBe("4");
    expect(await page.textContent("#navstatus")).toContain("no further over-confident step");
    await page.keyboard.press("p");
    expect(await current()).toBe("1");
    await page.keyboard.press("e");
    expect(await current()).toBe("3"); // the unscored step: its parse error
    await page.keyboard.press("j");
    expect(await current()).toBe("4");
    await page.close();
  });

  it("requested nothing outside the site and raised no page error", () => {
    expect(requested.length).toBeGreaterThan(0);
    const outside = requested.filter((u) => !u.startsWith(pathToFileURL(site).href) && !u.startsWith(httpUrl));
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
