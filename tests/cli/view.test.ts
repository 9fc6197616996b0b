import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { resolveRequest, serveSite, viewCommand } from "../../src/cli/view/view.js";
import { withExitCode } from "../../src/cli/main.js";
import { UsageError } from "../../src/cli/shared/args.js";

function get(url: string, method = "GET", rawPath?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: rawPath ?? u.pathname, method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("resolveRequest", () => {
  const root = mkdtempSync(join(tmpdir(), "s3view-root-"));
  mkdirSync(join(root, "chunks"));
  writeFileSync(join(root, "index.html"), "<!doctype html>");
  writeFileSync(join(root, "chunks", "r0.js"), "S3V_CHUNK('r0', {});");
  writeFileSync(join(root, "chunks", ".s3gym-view"), "marker");
  writeFileSync(join(root, "secret.json"), "{}");

  it("maps the site's files and nothing else", () => {
    expect(resolveRequest(root, "/")).toBe(join(root, "index.html"));
    expect(resolveRequest(root, "/chunks/r0.js?x=1")).toBe(join(root, "chunks", "r0.js"));
    expect(resolveRequest(root, "/../etc/passwd")).toBeNull();
    expect(resolveRequest(root, "/chunks/%2e%2e/%2e%2e/etc/passwd")).toBeNull();
    expect(resolveRequest(root, "/chunks/.s3gym-view")).toBeNull();
    expect(resolveRequest(root, "/secret.json")).toBeNull(); // only .html and .js are served
    expect(resolveRequest(root, "/%E0%A4%A")).toBeNull(); // malformed escape
    expect(resolveRequest(root, "/chunks/missing.js")).toBeNull();
  });

  describe("serveSite", () => {
    let close: () => Promise<void>;
    let url: string;
    beforeAll(async () => {
      const s = await serveSite(root, 0);
      url = s.url;
      close = () => new Promise((r) => s.server.close(() => r()));
    });
    afterAll(() => close());

    it("listens on 127.0.0.1 only and sends the page's policy", async () => {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const res = await get(url);
      expect(res.status).toBe(200);
      expect(String(res.headers["content-security-policy"])).toContain("default-src 'none'");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.body).toBe("<!doctype html>");
    });

    it("answers 404 outside the site and 405 to anything but GET/HEAD", async () => {
      expect((await get(url, "GET", "/../secret.json")).status).toBe(404);
      expect((await get(url, "GET", "/secret.json")).status).toBe(404);
      expect((await get(url, "POST")).status).toBe(405);
      const head = await get(url, "HEAD");
      expect(head.status).toBe(200);
      expect(head.body).toBe("");
    });
  });
});

describe("viewCommand", () => {
  it("builds the site and prints where it is", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3view-cli-"));
    await writeSyntheticData(data, { models: ["m"], games: ["snake"], pathways: ["history"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 1 });
    const out = join(data, "site");
    const writes: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => (writes.push(String(s)), true)) as typeof process.stdout.write;
    try {
      expect(await viewCommand(["--data", data, "--out", out, "--bootstrap", "20"])).toBe(0);
    } finally {
      process.stdout.write = orig;
    }
    expect(writes.join("")).toMatch(/1 runs, 5 episodes, \d+ steps/);
    expect(writes.join("")).toContain(join(out, "index.html"));
  });

  it("names the flag on bad arguments and fails cleanly on a missing directory", async () => {
    await expect(viewCommand([])).rejects.toThrow(UsageError);
    await expect(viewCommand(["--data", "x", "--port", "80"])).rejects.toThrow(/--port needs --serve/);
    await expect(viewCommand(["--data", "x", "--serve", "--port", "70000"])).rejects.toThrow(/at most 65535/);
    await expect(viewCommand(["--data", "x", "--bootstrap", "0"])).rejects.toThrow(/--bootstrap/);
    // The missing folder is thrown; the dispatcher prints it naming the command and exits 1.
    const errs: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => errs.push(s) } };
    const missing = join(tmpdir(), "no-such-s3gym-dir");
    expect(await withExitCode("view", () => viewCommand(["--data", missing, "--out", mkdtempSync(join(tmpdir(), "s3view-o-"))]), io)).toBe(1);
    expect(errs.join("")).toMatch(new RegExp(`^s3gym view: ${missing}: data directory not found .*\n$`));
  });
});
