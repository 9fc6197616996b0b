/**
 * `s3gym reproduce` checks Jupyter and the tslab kernel before anything long, and when one is missing
 * prints exactly how to install it (Debian and pip) and exits 2 without touching the data directory.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { reproduceCommand } from "../../../src/cli/reproduce/reproduce.js";
import { main } from "../../../src/cli/main.js";
import { checkJupyter, formatJupyterProblems, INSTALL_HINTS, pythonCandidates } from "../../../src/report/notebooks/jupyter.js";
import { NOTEBOOK_ENGINES } from "../../../src/report/notebooks/engines.js";

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

  it("--engine jupyter exits 2 with install hints, before running anything, when python/jupyter is missing", async () => {
    vi.stubEnv("S3GYM_PYTHON", NO_JUPYTER.S3GYM_PYTHON);
    vi.stubEnv("PATH", NO_JUPYTER.PATH);
    let out = "";
    let err = "";
    vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    const base = mkdtempSync(join(tmpdir(), "s3gym-repro-"));
    const t = Date.now();
    // The default engine (node) needs no Jupyter: only the Jupyter engine checks for it (deliberate change, issue 14).
    const rc = await reproduceCommand(["--quick", "--engine", "jupyter", "--data", join(base, "data"), "--out", join(base, "out")]);
    expect(rc).toBe(2);
    expect(Date.now() - t).toBeLessThan(30_000);
    expect(err).toContain("sudo apt-get update && sudo apt-get install -y jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel");
    expect(err).toContain("python3 -m pip install nbconvert nbclient jupyter_client ipykernel");
    expect(err).toContain("npx tslab install");
    expect(out).not.toContain("matrix");
    expect(existsSync(join(base, "data"))).toBe(false);
    expect(existsSync(join(base, "out"))).toBe(false);
  });

  it("rejects an unknown engine with exit 2, naming the valid ones", async () => {
    let err = "";
    vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    expect(await main(["reproduce", "--engine", "ipython"])).toBe(2);
    expect(err).toContain("unknown --engine 'ipython': expected one of node, jupyter");
  });

  it("rejects unknown flags with exit 2", async () => {
    let err = "";
    vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    expect(await main(["reproduce", "--fast"])).toBe(2);
    expect(err).toContain("--fast");
  });
});

describe("the notebook engines' prerequisites", () => {
  it("the node engine needs only npm ci and npm run build, and says which is missing", () => {
    const bare = mkdtempSync(join(tmpdir(), "s3gym-nokit-"));
    const problems = NOTEBOOK_ENGINES.node.check(bare);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain("tslab is not installed");
    expect(problems[0]).toContain("run 'npm ci'");
    expect(problems[1]).toContain("the kit is not built");
    expect(problems[1]).toContain("run 'npm run build'");
    // This checkout has both (the test suite builds before it runs).
    expect(NOTEBOOK_ENGINES.node.check(ROOT)).toEqual([]);
  });

  it("the jupyter engine adds Jupyter's own problems", () => {
    const problems = NOTEBOOK_ENGINES.jupyter.check(ROOT, NO_JUPYTER);
    expect(problems.join("\n")).toContain("S3GYM_PYTHON=/nonexistent/bin/python3");
  });
});
