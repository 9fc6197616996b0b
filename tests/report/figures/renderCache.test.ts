/** reproduce's render cache: a hit only for exactly the same input, never without the variable. */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cachedPng, cachedSvg, RENDER_CACHE_VAR, withRenderCache } from "../../../src/report/figures/renderCache.js";

function counting<A extends unknown[], R>(f: (...a: A) => R): { f: (...a: A) => R; calls: () => number } {
  let n = 0;
  return { f: (...a: A) => (n++, f(...a)), calls: () => n };
}

describe("render cache", () => {
  it("renders every time without the variable", () => {
    const r = counting((svg: string, scale: number) => Buffer.from(`${scale}:${svg}`));
    cachedPng("<svg/>", 2, r.f, {});
    cachedPng("<svg/>", 2, r.f, {});
    expect(r.calls()).toBe(2);
  });

  it("gives back a PNG's bytes for the same SVG and scale only", () => {
    const env = { [RENDER_CACHE_VAR]: mkdtempSync(join(tmpdir(), "s3gym-rc-")) };
    const r = counting((svg: string, scale: number) => Buffer.from(`${scale}:${svg}`));
    expect(cachedPng("<svg a/>", 2, r.f, env).toString()).toBe("2:<svg a/>");
    expect(cachedPng("<svg a/>", 2, r.f, env).toString()).toBe("2:<svg a/>");
    expect(r.calls()).toBe(1);
    expect(cachedPng("<svg a/>", 3, r.f, env).toString()).toBe("3:<svg a/>");
    expect(cachedPng("<svg b/>", 2, r.f, env).toString()).toBe("2:<svg b/>");
    expect(r.calls()).toBe(3);
  });

  it("keys an SVG by the whole spec: NaN, null and -0 are different specs; a lone surrogate survives", async () => {
    const env = { [RENDER_CACHE_VAR]: mkdtempSync(join(tmpdir(), "s3gym-rc-")) };
    const r = counting(async (spec: { v: unknown }) => `svg ${Object.is(spec.v, -0) ? "-0" : String(spec.v)} \ud800`);
    const specs = [{ v: Number.NaN }, { v: null }, { v: 0 }, { v: -0 }];
    const first = await Promise.all(specs.map((s) => cachedSvg(s, r.f, env)));
    const again = [];
    for (const s of specs) again.push(await cachedSvg(s, r.f, env));
    expect(r.calls()).toBe(4);
    expect(again).toEqual(first);
    expect(again).toEqual(["svg NaN \ud800", "svg null \ud800", "svg 0 \ud800", "svg -0 \ud800"]);
  });

  it("withRenderCache names a fresh folder for its callee only, and removes it", async () => {
    const before = process.env[RENDER_CACHE_VAR];
    let seen = "";
    await withRenderCache(async () => {
      seen = process.env[RENDER_CACHE_VAR] ?? "";
      cachedPng("<svg/>", 2, () => Buffer.from("png"));
      expect(readdirSync(seen)).toHaveLength(1);
    });
    expect(seen).not.toBe("");
    expect(existsSync(seen)).toBe(false);
    expect(process.env[RENDER_CACHE_VAR]).toBe(before);
  });
});
