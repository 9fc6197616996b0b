/**
 * A content-addressed cache of rendered figures for one `reproduce`: its report draws every figure,
 * then each notebook draws its own again through the same renderer (render.ts), and vega + resvg were
 * about half of a notebook's CPU. `reproduce` names a fresh temporary folder in `S3GYM_RENDER_CACHE`
 * for its report and notebooks, and removes it at the end, so an entry never outlives the kit that
 * rendered it. Unset (a notebook run by hand, `s3gym report`), every figure is rendered.
 *
 * An entry's name is the SHA-256 of exactly what the render reads (the spec's v8 serialisation,
 * which tells NaN, undefined and -0 apart; the SVG text and the scale), so a hit is the bytes the
 * render would give. Entries are written to a temporary name and renamed: a notebook running beside
 * another never reads half an entry. Any failure to read or write the cache just renders.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serialize } from "node:v8";

/** The variable that names the cache folder. */
export const RENDER_CACHE_VAR = "S3GYM_RENDER_CACHE";

function entryPath(dir: string, kind: string, input: Buffer | string): string {
  return join(dir, `${kind}-${createHash("sha256").update(input).digest("hex")}`);
}

function read(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

function write(path: string, bytes: Buffer | string): void {
  try {
    mkdirSync(join(path, ".."), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, path);
  } catch {
    // An unwritable cache only costs the next reader a render.
  }
}

/** The SVG of `spec`: the cached one, else `render(spec)` (and cached). */
export async function cachedSvg<S>(spec: S, render: (spec: S) => Promise<string>, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = env[RENDER_CACHE_VAR]?.trim();
  let key: Buffer | null = null;
  try {
    key = dir ? serialize(spec) : null;
  } catch {
    // a spec v8 cannot serialise (a function in it): rendered every time
  }
  if (!dir || key === null) return render(spec);
  const path = entryPath(dir, "svg", key);
  // Kept as JSON: a lone surrogate in a label survives the round trip, as UTF-8 would not keep it.
  const hit = read(path);
  if (hit !== null) {
    try {
      return JSON.parse(hit.toString("utf8")) as string;
    } catch {
      // a damaged entry: rendered again
    }
  }
  const svg = await render(spec);
  write(path, JSON.stringify(svg));
  return svg;
}

/** The PNG of `svg` at `scale`: the cached one, else `render(svg, scale)` (and cached). */
export function cachedPng(svg: string, scale: number, render: (svg: string, scale: number) => Buffer, env: NodeJS.ProcessEnv = process.env): Buffer {
  const dir = env[RENDER_CACHE_VAR]?.trim();
  if (!dir) return render(svg, scale);
  const path = entryPath(dir, "png", `${scale}\n${svg}`);
  const hit = read(path);
  if (hit !== null) return hit;
  const png = render(svg, scale);
  write(path, png);
  return png;
}

/** Any rendered bytes (a figure's PDF) keyed by exactly what the render reads: the cached ones, else `render()` (and cached). */
export async function cachedBytes(kind: string, input: string, render: () => Promise<Buffer>, env: NodeJS.ProcessEnv = process.env): Promise<Buffer> {
  const dir = env[RENDER_CACHE_VAR]?.trim();
  if (!dir) return render();
  const path = entryPath(dir, kind, input);
  const hit = read(path);
  if (hit !== null) return hit;
  const bytes = await render();
  write(path, bytes);
  return bytes;
}

/**
 * Runs `f` with a fresh cache folder named in `S3GYM_RENDER_CACHE` (so the child processes it starts
 * share it), then restores the variable and removes the folder.
 */
export async function withRenderCache<T>(f: () => Promise<T>): Promise<T> {
  const before = process.env[RENDER_CACHE_VAR];
  const dir = await mkdtemp(join(tmpdir(), "s3gym-render-"));
  process.env[RENDER_CACHE_VAR] = dir;
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env[RENDER_CACHE_VAR];
    else process.env[RENDER_CACHE_VAR] = before;
    await rm(dir, { recursive: true, force: true });
  }
}
