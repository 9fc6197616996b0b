/**
 * `s3gym reproduce` checks Jupyter and the tslab kernel before anything long, and when one is missing
 * prints exactly how to install it (Debian and pip) and exits 2 without touching the data directory.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { matrixArgs, PAPER_SCHEDULE, QUICK_SCHEDULE, reproduceCommand } from "../../../src/cli/reproduce.js";
import { checkJupyter, formatJupyterProblems, INSTALL_HINTS, pythonCandidates } from "../../../src/report/notebooks/jupyter.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const NO_JUPYTER = { S3GYM_PYTHON: "/nonexistent/bin/python3", PATH: "/nonexistent/bin" };

describe("checkJupyter", () => {
  it("S3GYM_PYTHON is the only candidate when set; Debian's python3 comes first otherwise", () => {
    expect(pythonCandidates({ S3GYM_PYTHON: "/opt/py/bin/python3" })).toEqual(["/opt/py/bin/python3"]);
    expect(pythonCandidates({})).toEqual(["/usr/bin/python3", "python3"]);
  });

  it("a python without Jupyter gives the Debian and pip install commands", () => {
    const r = checkJupyter(ROOT, NO_JUPYTER);
    expect(r.ok).toBe(false);
    const text = r.ok ? "" : formatJupyterProblems(r.problems);
    expect(text).toContain("S3GYM_PYTHON=/nonexistent/bin/python3");
    expect(text).toContain(INSTALL_HINTS.debian);
    expect(text).toContain("apt-get install -y jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel");
    expect(text).toContain(INSTALL_HINTS.pip);
    expect(text).toContain("--no-notebooks");
  });

  it("a kit without node_modules is told to run npm ci", () => {
    const r = checkJupyter(mkdtempSync(join(tmpdir(), "s3gym-nokit-")), NO_JUPYTER);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.join("\n")).toContain("npm ci");
  });
});

describe("reproduce prerequisites", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it("exits 2 with install hints, before running anything, when python/jupyter is missing", async () => {
    vi.stubEnv("S3GYM_PYTHON", NO_JUPYTER.S3GYM_PYTHON);
    vi.stubEnv("PATH", NO_JUPYTER.PATH);
    let out = "";
    let err = "";
    vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    const base = mkdtempSync(join(tmpdir(), "s3gym-repro-"));
    const t = Date.now();
    const rc = await reproduceCommand(["--quick", "--data", join(base, "data"), "--out", join(base, "out")]);
    expect(rc).toBe(2);
    expect(Date.now() - t).toBeLessThan(30_000);
    expect(err).toContain("sudo apt-get update && sudo apt-get install -y jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel");
    expect(err).toContain("python3 -m pip install nbconvert nbclient jupyter_client ipykernel");
    expect(err).toContain("npx tslab install");
    expect(out).not.toContain("matrix");
    expect(existsSync(join(base, "data"))).toBe(false);
    expect(existsSync(join(base, "out"))).toBe(false);
  });

  it("rejects unknown flags with exit 2", async () => {
    let err = "";
    vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    expect(await reproduceCommand(["--fast"])).toBe(2);
    expect(err).toContain("--fast");
  });
});

describe("the default offline matrix", () => {
  it("is the three offline models, all games, none/history/memory, on the paper's schedule", () => {
    const a = matrixArgs(PAPER_SCHEDULE, "/d");
    const flag = (name: string) => a[a.indexOf(name) + 1];
    expect(flag("--models")).toBe("builtin:random,builtin:heuristic,builtin:oracle");
    expect(flag("--games")).toBe("all");
    expect(flag("--pathways")).toBe("none,history,memory");
    expect(flag("--data")).toBe("/d");
    expect([flag("--explore-episodes"), flag("--checkpoint-every"), flag("--eval-episodes"), flag("--max-steps")]).toEqual(["30", "3", "3", "64"]);
    const q = matrixArgs(QUICK_SCHEDULE, "/d");
    expect(q[q.indexOf("--explore-episodes") + 1]).toBe("3");
  });
});
