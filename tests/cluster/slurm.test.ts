/**
 * A real one-node Slurm (toolchain.md, "Slurm"): munge and slurmctld/slurmd started here on
 * localhost with their state in a temp directory, the job file of `s3gym cluster slurm` submitted
 * as a user would (`bash submit.sh`) for 4 shards of a small matrix against the test server
 * (`s3gym serve`'s server, in this process), then: every array task ran, the dependent report job
 * ran after them, `s3gym status` says complete, and the merged report's tables are byte-identical
 * to those of a one-process run of the same matrix.
 *
 * Skipped, with the reason, only where the daemons cannot start (not root, Slurm or munge not
 * installed); with CI=true that skip is a failure (CI installs them: .ci/run). The daemons are
 * stopped by pid at the end, pass or fail.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { parseClusterArgs } from "../../src/cli/cluster/cluster.js";
import { slurmScript } from "../../src/cli/cluster/clusterJobs.js";

const ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "dist", "cli", "main.js");
const BINARIES = ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch", "/usr/bin/scontrol", "/usr/bin/sinfo"];

/** Why the cluster cannot start here, or null. */
function cannotStart(): string | null {
  if (process.getuid?.() !== 0) return "not root (slurmd must run as root)";
  const missing = BINARIES.filter((b) => !existsSync(b));
  if (missing.length > 0) return `Slurm or munge is not installed (missing ${missing.join(", ")}; apt-get install slurm-wlm munge)`;
  if (!existsSync("/etc/munge/munge.key")) return "no /etc/munge/munge.key (the munge package writes it)";
  if (!existsSync(MAIN)) return "the kit is not built (npm run build)";
  return null;
}

const reason = cannotStart();
if (reason !== null && process.env.CI === "true") {
  describe("a real one-node Slurm", () => {
    it("must run in CI", () => {
      throw new Error(`the Slurm test cannot start in CI: ${reason} (.ci/run installs slurm-wlm and munge)`);
    });
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolvePort(typeof a === "object" && a ? a.port : 0));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every file under `dir` (relative path -> bytes). */
function filesUnder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const f of readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
    const p = join(dir, f);
    try {
      out.set(f, readFileSync(p));
    } catch {
      // a directory
    }
  }
  return out;
}

describe.skipIf(reason !== null)(`a real one-node Slurm${reason ? ` (skipped: ${reason})` : ""}`, () => {
  const state = mkdtempSync(join(tmpdir(), "s3slurm-"));
  // munged runs as the munge user: it must reach its folder under this one.
  chmodSync(state, 0o755);
  /** Why the daemons did not start (the test then skips, saying so; in CI it fails). */
  let startFailure: string | null = null;
  const env: Record<string, string> = { ...(process.env as Record<string, string>), SLURM_CONF: join(state, "slurm.conf"), OPENAI_API_KEY: "test-key-not-secret" };
  const daemons: ChildProcess[] = [];
  let mungePid: number | null = null;
  let server: RunningServer;
  const host = hostname().split(".")[0]!;
  const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { env, encoding: "utf8", timeout: 30_000 });

  beforeAll(async () => {
    try {
      await startCluster();
    } catch (e) {
      startFailure = (e as Error).message.split("\n").slice(0, 3).join(" ");
    }
  }, 120_000);

  async function startCluster(): Promise<void> {
    // munge on its own socket, as the munge user (munged refuses to run as root by default).
    const munge = join(state, "munge");
    mkdirSync(munge);
    const ids = execFileSync("id", ["-u", "munge"], { encoding: "utf8" }).trim();
    const gid = execFileSync("id", ["-g", "munge"], { encoding: "utf8" }).trim();
    chownSync(munge, Number(ids), Number(gid));
    const sock = join(munge, "sock");
    execFileSync("su", ["-s", "/bin/sh", "munge", "-c", `/usr/sbin/munged --socket=${sock} --pid-file=${munge}/pid --log-file=${munge}/log --seed-file=${munge}/seed`]);
    mungePid = Number(readFileSync(join(munge, "pid"), "utf8").trim());
    const [ctldPort, dPort] = [await freePort(), await freePort()];
    const mem = Math.max(1024, Math.floor(totalmem() / 2 ** 20) - 1024);
    for (const d of ["ctld", "d", "log"]) mkdirSync(join(state, d));
    writeFileSync(
      env.SLURM_CONF!,
      [
        "ClusterName=s3gymtest",
        `SlurmctldHost=${host}`,
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        `AuthInfo=socket=${sock}`,
        "CredType=cred/munge",
        `StateSaveLocation=${state}/ctld`,
        `SlurmdSpoolDir=${state}/d`,
        `SlurmctldPidFile=${state}/ctld.pid`,
        `SlurmdPidFile=${state}/d.pid`,
        `SlurmctldLogFile=${state}/log/ctld.log`,
        `SlurmdLogFile=${state}/log/d.log`,
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${dPort}`,
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "MinJobAge=600",
        `NodeName=${host} CPUs=2 RealMemory=${mem} State=UNKNOWN`,
        `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
        "",
      ].join("\n"),
    );
    const start = (bin: string) => {
      const p = spawn(bin, ["-D", "-f", env.SLURM_CONF!], { env, stdio: ["ignore", "ignore", "ignore"] });
      daemons.push(p);
    };
    start("/usr/sbin/slurmctld");
    await sleep(2000);
    start("/usr/sbin/slurmd");
    const deadline = Date.now() + 60_000;
    let info = "";
    while (Date.now() < deadline) {
      try {
        info = sh("sinfo", ["-h", "-o", "%T"]).trim();
        if (info === "idle") break;
      } catch (e) {
        info = (e as Error).message;
      }
      await sleep(1000);
    }
    if (info !== "idle") throw new Error(`the node did not come up idle within 60 s (sinfo: ${info}); logs in ${state}/log`);
    server = await startServer({ latencyMs: 1 });
  }

  afterAll(async () => {
    try {
      execFileSync("scancel", ["--full", "-u", "root"], { env, timeout: 10_000 });
    } catch {
      // nothing to cancel, or the controller is already gone
    }
    for (const p of daemons) if (p.pid !== undefined && p.exitCode === null) p.kill("SIGTERM");
    if (mungePid !== null) {
      try {
        process.kill(mungePid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    await server?.close();
    await sleep(500);
    for (const p of daemons) if (p.pid !== undefined && p.exitCode === null) p.kill("SIGKILL");
    rmSync(state, { recursive: true, force: true });
  });

  it("4 array tasks, then the dependent report: status complete, tables byte-identical to one process", async (ctx) => {
    if (startFailure !== null) {
      if (process.env.CI === "true") throw new Error(`the Slurm daemons did not start in CI: ${startFailure}`);
      console.warn(`skipped: the Slurm daemons did not start: ${startFailure}`);
      ctx.skip(`the Slurm daemons did not start: ${startFailure}`);
    }
    const data = join(state, "data");
    const matrix = [
      "--models",
      "openai:s3gym-heuristic",
      "--games",
      "snake,trust,minesweeper",
      "--pathways",
      "none,history",
      "--explore-episodes",
      "2",
      "--checkpoint-every",
      "1",
      "--eval-episodes",
      "2",
      "--max-steps",
      "6",
      "--base-url",
      server.url,
      "--progress",
      "off",
    ];
    const { job } = parseClusterArgs(["slurm", "--shards", "4", "--data", data, "--cpus-per-task", "1", "--mem", "512M", "--time", "10:00", "--s3gym", `${process.execPath} ${MAIN}`, ...matrix], env);
    const submit = join(state, "submit.sh");
    writeFileSync(submit, slurmScript(job));
    const said = sh("bash", [submit]);
    const m = /shards job (\d+) .* report job (\d+)/.exec(said);
    expect(m, said).not.toBeNull();
    const [shardsJob, reportJob] = [m![1]!, m![2]!];
    // Poll the report job (it runs only after every array task succeeded).
    const deadline = Date.now() + 150_000;
    let jobState = "";
    while (Date.now() < deadline) {
      jobState = /JobState=(\w+)/.exec(sh("scontrol", ["show", "job", reportJob]))?.[1] ?? "";
      if (["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"].includes(jobState)) break;
      if (jobState === "PENDING" && /Reason=DependencyNeverSatisfied/.test(sh("scontrol", ["show", "job", reportJob]))) break;
      await sleep(2000);
    }
    const logs = join(data, "slurm");
    const outputs = existsSync(logs) ? readdirSync(logs).sort() : [];
    const dump = outputs.map((f) => `--- ${f}\n${readFileSync(join(logs, f), "utf8").slice(-1500)}`).join("\n");
    expect(jobState, dump).toBe("COMPLETED");
    // One output file per array task (0..3) and one of the report.
    expect(outputs).toEqual([...[0, 1, 2, 3].map((t) => `shards-${shardsJob}_${t}.out`), `report-${reportJob}.out`].sort());
    for (const t of [0, 1, 2, 3]) expect(readFileSync(join(logs, `shards-${shardsJob}_${t}.out`), "utf8")).toContain(`shard ${t + 1}/4 (from the Slurm array task)`);
    const status = await s3gym(["status", "--data", data]);
    expect(status.code, status.text).toBe(0);
    expect(status.text).toMatch(/total\t6 runs\t6 done\tcomplete/);

    // The same matrix in one process, one directory, one report.
    const single = join(state, "single");
    const one = await s3gym(["run", ...matrix, "--data", single]);
    expect(one.code, one.text).toBe(0);
    const rep = await s3gym(["report", "--data", single, "--out", join(state, "single-report")]);
    expect(rep.code, rep.text).toBe(0);
    const merged = filesUnder(join(data, "report", "tables"));
    const alone = filesUnder(join(state, "single-report", "tables"));
    expect([...merged.keys()]).toEqual([...alone.keys()]);
    expect(merged.size).toBeGreaterThan(5);
    for (const [f, bytes] of alone) expect(merged.get(f)!.equals(bytes), `tables/${f} differs`).toBe(true);

    /** `s3gym ARGS` as a child process, awaited (the test server answers from this process meanwhile). */
    function s3gym(args: string[]): Promise<{ code: number; text: string }> {
      return new Promise((done) => {
        const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
        let text = "";
        child.stdout.on("data", (b: Buffer) => (text += b.toString()));
        child.stderr.on("data", (b: Buffer) => (text += b.toString()));
        child.on("close", (code) => done({ code: code ?? 1, text }));
      });
    }
  }, 300_000);
});
