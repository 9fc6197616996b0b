/**
 * Reproduce's probes phase on every core: the data directory's probe runs cut into `jobs` shards
 * (probeJob.ts: by run-id order), each an `s3gym probe --job FILE` child process (the runner is
 * single-threaded: one core per process). The probe runs are the ones one process plays, each a run
 * of its own, so the shards write the same files; a rerun resumes every shard's runs. One job: the
 * probes in this process, as before.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DataProbeSpec } from "../../runner/probe/memoryProbe.js";
import { s3gymArgv } from "../childCommand.js";
import { probeDataDir } from "../probe/probe.js";
import { probeJob, probeJobText } from "../probe/probeJob.js";

/** Plays `spec`'s probes of `dataDir` on `jobs` processes; each process's totals line goes to `say`. Exit code: 0 when every shard completed. */
export async function probeOnCores(dataDir: string, spec: DataProbeSpec, jobs: number, say: (line: string) => void): Promise<number> {
  const sink = { write: (t: string) => say(t.trimEnd()) };
  if (jobs <= 1) return probeDataDir(dataDir, spec, sink);
  const dir = mkdtempSync(join(tmpdir(), "s3gym-reproduce-probes-"));
  try {
    const codes = await Promise.all(
      Array.from({ length: jobs }, (_, i) => {
        const file = join(dir, `probes-${i + 1}-of-${jobs}.json`);
        writeFileSync(file, probeJobText(probeJob(dataDir, spec, i, jobs)));
        return probeChild(file, sink);
      }),
    );
    return codes.find((c) => c !== 0) ?? 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One probe child: its stdout lines to `sink`, its stderr through; resolves with its exit code (a signal: 1). */
function probeChild(file: string, sink: { write(t: string): unknown }): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, s3gymArgv("probe", "--job", file, "--progress", "off"), { stdio: ["ignore", "pipe", "inherit"] });
    let pending = "";
    child.stdout.on("data", (d: Buffer) => {
      pending += d.toString("utf8");
      const cut = pending.lastIndexOf("\n");
      if (cut < 0) return;
      for (const line of pending.slice(0, cut).split("\n")) sink.write(line);
      pending = pending.slice(cut + 1);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (pending.length > 0) sink.write(pending);
      resolvePromise(code ?? (signal ? 1 : 0));
    });
  });
}
