/**
 * Red team, issue 44 item 13 (lesser): what was skipped or failed without a name.
 *
 * Before: a run directory that is a symbolic link was skipped without a word; an oversized reply to
 * the preflight's probe exited 1 with "s3gym: the response body exceeded 4194304 bytes", naming no
 * model and no host.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server?.closeAllConnections();
  server = null;
});

describe("nothing is skipped or fails without a name", () => {
  it("a run directory that is a symbolic link is left out with a warning naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3-symrun-"));
    const data = join(dir, "data");
    const other = join(dir, "other");
    await writeSyntheticData(data, { models: ["m:a"], games: ["nullify"], pathways: ["history"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 1, stepsPerEpisode: [2, 3] });
    await writeSyntheticData(other, { models: ["m:b"], games: ["nullify"], pathways: ["history"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 1, stepsPerEpisode: [2, 3] });
    const linked = readdirSync(join(other, "runs"))[0]!;
    symlinkSync(join(other, "runs", linked), join(data, "runs", linked));
    const ds = await loadDataset(data);
    expect(ds.runs.map((r) => r.run_id)).not.toContain(linked);
    expect(ds.runs.length).toBe(1);
    expect(ds.warnings.join("\n")).toContain(`${join(data, "runs", linked)}: a symbolic link, not a run directory: left out`);
  });

  it("an oversized reply to the preflight's probe is named with the model and the host", async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        if (req.url?.endsWith("/models")) return res.end(JSON.stringify({ data: [{ id: "big" }] }));
        res.write('{"choices":[{"message":{"role":"assistant","content":"');
        res.end(`${"x".repeat(5 * 1024 * 1024)}"}}]}`);
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const out: string[] = [];
    const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(t) } };
    const data = join(mkdtempSync(join(tmpdir(), "s3-bigprobe-")), "data");
    const argv = [
      "--models",
      "openai:big",
      "--base-url",
      `http://${host}/v1`,
      "--games",
      "nullify",
      "--pathways",
      "none",
      "--explore-episodes",
      "1",
      "--eval-episodes",
      "1",
      "--max-steps",
      "2",
      "--max-retries",
      "0",
      "--data",
      data,
      "--progress",
      "off",
    ];
    const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: "EMPTY" }, ...io }), io);
    const text = out.join("");
    expect(code).toBe(2);
    expect(text).toContain(`model 'openai:big' at ${host}: the one-token probe's reply went past 4194304 bytes`);
  }, 60_000);
});
