/**
 * The kit as a user gets it: `npm pack`, the tarball installed into an empty project far from the
 * clone, then, from that project only, `s3gym init`, a smoke study against `s3gym serve`, `report`,
 * and the study's notebook (which imports `s3gym` as a package). Checks the tables, the executed
 * notebook and the study hash in the manifests are where the docs say.
 *
 * Slow by nature (pack + an install of every dependency from the npm cache, ~1-4 minutes on 2
 * cores; the smoke study ~30 s; the notebook ~20 s). The tarball is packed with --ignore-scripts
 * from the dist/ that `npm test` has just built (the `prepare` script would rebuild dist/ while
 * other test files read it); that `prepare` builds is checked apart (docs/study.md, "Install").
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const built = existsSync(join(ROOT, "dist", "index.js")) && existsSync(join(ROOT, "dist", "cli", "main.js"));
const TIMEOUT_MS = 15 * 60_000;

/** Runs a command in `cwd`, returning stdout; a failure throws with its stderr. */
function sh(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  try {
    return execFileSync(cmd, args, { cwd, env: { ...process.env, NODE_PATH: "", ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  }
}

describe.skipIf(!built)(`the packed kit, installed into an empty project${built ? "" : " (skipped: run 'npm run build')"}`, () => {
  const work = mkdtempSync(join(tmpdir(), "s3gym-installed-"));
  let server: ChildProcess | null = null;
  afterAll(() => {
    server?.kill("SIGTERM");
    rmSync(work, { recursive: true, force: true });
  });

  it(
    "packs, installs, inits a study, plays its smoke run against s3gym serve, reports, and runs its notebook",
    async () => {
      const t0 = Date.now();
      // Pack: the tarball must carry the built kit and its command, not the sources or the tests.
      const packed = JSON.parse(sh("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT)) as { filename: string; files: { path: string }[] }[];
      const files = packed[0]!.files.map((f) => f.path);
      for (const f of ["dist/index.js", "dist/index.d.ts", "dist/cli/main.js", "package.json", "README.md", "docs/study.md"]) expect(files, f).toContain(f);
      expect(files.filter((f) => f.startsWith("src/") || f.startsWith("tests/"))).toEqual([]);
      const tgz = join(work, packed[0]!.filename);

      // Install into an empty project that has no clone above it.
      const project = join(work, "project");
      sh("mkdir", ["-p", project], work);
      writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "my-study", private: true, version: "0.0.0" }, null, 2)}\n`);
      sh("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tgz], project);
      const bin = join(project, "node_modules", ".bin", "s3gym");
      expect(existsSync(bin)).toBe(true);
      const tInstalled = Date.now();

      // The offline endpoint, from the installed kit.
      server = spawn(bin, ["serve", "--port", "0"], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
      const url = await new Promise<string>((resolveUrl, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`s3gym serve printed no address: ${out}`)), 60_000);
        server!.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolveUrl(m[1]!);
          }
        });
        server!.on("exit", (code) => reject(new Error(`s3gym serve exited ${code}: ${out}`)));
      });

      // init, pointed at the server; then everything from the study's folder.
      sh(bin, ["init", "study", "--model", "openai:s3gym-heuristic", "--base-url", url, "--api-key-env", "MY_TEST_KEY"], project);
      const study = join(project, "study");
      for (const f of ["s3gym.yaml", "s3gym.schema.json", "analysis.ipynb", ".gitignore", "README.md"]) expect(existsSync(join(study, f)), f).toBe(true);
      expect(readFileSync(join(study, "analysis.ipynb"), "utf8")).toContain('from \\"s3gym\\"');
      const env = { MY_TEST_KEY: "EMPTY" };
      const run = sh(bin, ["run", "s3gym.yaml", "--smoke", "--progress", "off"], study, env);
      expect(run).toMatch(/\b42 runs, 42 complete\b/);

      // The resolved study and its hash, in the data folder and in every manifest.
      const data = join(study, "smoke", "data");
      const recorded = JSON.parse(readFileSync(join(data, "study.json"), "utf8")) as { sha256: string; profile: string };
      expect(recorded.profile).toBe("smoke");
      expect(existsSync(join(data, "studies", `${recorded.sha256}.json`))).toBe(true);
      const runs = readdirSync(join(data, "runs"));
      expect(runs.length).toBe(42);
      for (const r of runs) {
        const m = JSON.parse(readFileSync(join(data, "runs", r, "manifest.json"), "utf8")) as { config: { invocation: { study?: { sha256: string } } } };
        expect(m.config.invocation.study?.sha256, r).toBe(recorded.sha256);
      }

      sh(bin, ["report", "s3gym.yaml", "--smoke"], study);
      const out = join(study, "smoke", "figures");
      const main = readFileSync(join(out, "tables", "main_results.csv"), "utf8");
      expect(main.split("\n")[0]).toContain("model");
      expect(main).toContain("mine");
      expect(main).toContain("builtin:heuristic");
      expect(existsSync(join(out, "report.json"))).toBe(true);

      // The study's own notebook, by path, reading the smoke run.
      rmSync(join(out, "tables"), { recursive: true });
      sh(bin, ["notebooks", "s3gym.yaml", "analysis.ipynb", "--smoke"], study);
      const executed = JSON.parse(readFileSync(join(out, "notebooks", "analysis.ipynb"), "utf8")) as {
        cells: { cell_type: string; execution_count: number | null; outputs?: { output_type: string }[] }[];
      };
      const code = executed.cells.filter((c) => c.cell_type === "code");
      expect(code.every((c) => c.execution_count !== null)).toBe(true);
      expect(code.flatMap((c) => c.outputs ?? []).filter((o) => o.output_type === "error")).toEqual([]);
      expect(code.flatMap((c) => c.outputs ?? []).some((o) => o.output_type === "display_data")).toBe(true);
      expect(readFileSync(join(out, "tables", "main_results.csv"), "utf8")).toBe(main);
      // Printed for the record: what the slow part costs on this machine.
      console.log(`installed-kit test: pack + install ${((tInstalled - t0) / 1000).toFixed(0)} s, the rest ${((Date.now() - tInstalled) / 1000).toFixed(0)} s`);
    },
    TIMEOUT_MS,
  );
});
