/** `s3gym notebooks`: argument errors and missing inputs exit 2 with the fix, before anything runs. */
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { tempDir } from "../analysis/helpers.js";

/** Through the dispatcher, which alone maps a bad flag and --help to output and an exit code. */
async function run(argv: string[]): Promise<{ rc: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  try {
    const rc = await main(["notebooks", ...argv]);
    return { rc, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe("s3gym notebooks", () => {
  it("rejects an unknown engine, a bad --jobs, and an unknown notebook name with exit 2", async () => {
    expect(await run(["--engine", "colab"])).toMatchObject({ rc: 2, err: expect.stringContaining("unknown --engine 'colab': expected one of node, jupyter") });
    expect(await run(["--jobs", "0"])).toMatchObject({ rc: 2, err: expect.stringContaining("--jobs must be at least 1") });
    expect(await run(["99"])).toMatchObject({ rc: 2, err: expect.stringContaining("no notebook matches '99'") });
  });

  it("a missing data directory or --compare folder is named, with how to get data", async () => {
    const missing = `${tempDir("s3gym-nbcli-")}/nope`;
    const r = await run(["--data", missing, "01"]);
    expect(r.rc).toBe(2);
    expect(r.err).toContain("does not exist (run 's3gym reproduce' or 's3gym run ... --data DIR' first)");
    const c = await run(["--data", tempDir("s3gym-nbcli-"), "--compare", missing, "01"]);
    expect(c).toMatchObject({ rc: 2, err: expect.stringContaining("--compare") });
  });

  it("--help prints the usage", async () => {
    const r = await run(["--help"]);
    expect(r.rc).toBe(0);
    expect(r.out).toContain("[--engine node|jupyter]: node (default");
  });
});
