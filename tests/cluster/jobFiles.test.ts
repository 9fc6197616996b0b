/**
 * `s3gym cluster`: the job files work as written. The Slurm script is run by bash against a fake
 * `sbatch` that records its arguments and the job script it is fed; the job script's exec line is
 * then run with `printf` in place of s3gym, so the words a node would pass are compared with the
 * words intended: a model name and a directory with spaces, quotes, `$( )` and backticks must arrive
 * whole and run nothing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clusterCommand, parseClusterArgs } from "../../src/cli/cluster/cluster.js";
import { withExitCode } from "../../src/cli/main.js";
import { k8sManifest, slurmScript } from "../../src/cli/cluster/clusterJobs.js";
import { shellQuote } from "../../src/util/shellQuote.js";
import { withoutFlags } from "../../src/cli/shared/args.js";

const NASTY = "openai:it's a $(touch PWNED) `touch PWNED2` ; model";
const MATRIX = ["--models", NASTY, "--games", "snake", "--pathways", "none,history", "--max-steps", "8"];

describe("shellQuote", () => {
  it("leaves plain words bare and single-quotes the rest so bash reads them back unchanged", () => {
    expect(shellQuote("snake,trust")).toBe("snake,trust");
    expect(shellQuote("")).toBe("''");
    const words = ["a b", "it's", "$HOME", "`x`", "*", "a;b", "\\n"];
    const echoed = execFileSync("bash", ["-c", `printf '%s\\n' ${words.map(shellQuote).join(" ")}`], { encoding: "utf8" });
    expect(echoed).toBe(`${words.join("\n")}\n`);
  });
});

describe("withoutFlags", () => {
  it("drops the named flags with their values, in both spellings", () => {
    expect(withoutFlags(["--a", "1", "--shard", "auto", "--b", "--data=x", "--no-shard-subdir", "--c", "3"], ["shard", "data"], ["no-shard-subdir"])).toEqual(["--a", "1", "--b", "--c", "3"]);
  });
});

describe("s3gym cluster slurm", () => {
  const dir = mkdtempSync(join(tmpdir(), "s3 job'dir $x-"));
  const data = join(dir, "da ta");

  it("submits the array (one task per shard) and the report after it, every word arriving whole", () => {
    const { job } = parseClusterArgs(["slurm", "--shards", "3", "--data", data, "--s3gym", "printf %s\\n", "--partition", "gpu", ...MATRIX]);
    const script = slurmScript(job);
    // A fake sbatch: records its arguments and the script on stdin, answers a job id.
    const bin = join(dir, "bin");
    execFileSync("mkdir", ["-p", bin]);
    writeFileSync(
      join(bin, "sbatch"),
      `#!/bin/bash\nn=$(ls "$FAKE_DIR"/call-*.args 2>/dev/null | wc -l)\nprintf '%s\\n' "$@" > "$FAKE_DIR/call-$n.args"\ncat > "$FAKE_DIR/call-$n.script"\necho $((100 + n))\n`,
    );
    chmodSync(join(bin, "sbatch"), 0o755);
    const submit = join(dir, "submit.sh");
    writeFileSync(submit, script);
    const said = execFileSync("bash", [submit], { cwd: dir, encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAKE_DIR: dir } });
    expect(said).toMatch(/shards job 100 \(3 array tasks\), report job 101/);
    expect(existsSync(join(data, "slurm"))).toBe(true);
    const args0 = readFileSync(join(dir, "call-0.args"), "utf8").split("\n");
    expect(args0).toContain(`--output=${data}/slurm/shards-%A_%a.out`);
    const args1 = readFileSync(join(dir, "call-1.args"), "utf8").split("\n");
    expect(args1).toContain("--dependency=afterok:100");
    const shards = readFileSync(join(dir, "call-0.script"), "utf8");
    for (const line of ["#SBATCH --array=0-2", "#SBATCH --cpus-per-task=2", "#SBATCH --mem=4G", "#SBATCH --time=24:00:00", "#SBATCH --partition=gpu"]) expect(shards).toContain(`${line}\n`);
    // The node's words: run the exec line (printf prints one word a line).
    const words = execFileSync("bash", ["-c", /^exec .*$/m.exec(shards)![0]], { cwd: dir, encoding: "utf8" })
      .split("\n")
      .slice(0, -1);
    expect(words).toEqual(["run", "--shard", "auto", ...MATRIX, "--data", data]);
    const report = readFileSync(join(dir, "call-1.script"), "utf8");
    const reportWords = execFileSync("bash", ["-c", /^exec .*$/m.exec(report)![0]], { cwd: dir, encoding: "utf8" })
      .split("\n")
      .slice(0, -1);
    expect(reportWords).toEqual(["report", "--data", `${data}/shard-1-of-3`, "--data", `${data}/shard-2-of-3`, "--data", `${data}/shard-3-of-3`, "--out", `${data}/report`]);
    expect(existsSync(join(dir, "PWNED")) || existsSync(join(dir, "PWNED2"))).toBe(false);
  });

  it.each([
    [["--shards", "0"], /--shards must be at least 1/],
    [["--shards", "2", "--shard", "1/2"], /--shard is set by the job file/],
    [["--shards", "2", "--partition", "a b"], /--partition must be a partition name/],
    [["--shards", "2", "--mem", "4 G"], /--mem must be a size/],
    [["--shards", "2", "--explore-episodes", "x"], /the s3gym run flags: --explore-episodes/],
    [["--shards", "2", "--label", "a\nb"], /control character/],
    [["--shards", "2", "--image", "x"], /--image and --pvc are for k8s/],
  ])("refuses %j, naming the flag (exit 2)", async (extra, message) => {
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
    const code = await withExitCode("cluster", () => clusterCommand(["slurm", "--data", data, ...MATRIX, ...extra], io), io);
    expect(code).toBe(2);
    expect(err.join("")).toMatch(message);
  });
});

describe("s3gym cluster k8s", () => {
  it("an indexed Job of N completions running --shard auto --shard-count N, and a report Job that waits for status", () => {
    const { job } = parseClusterArgs(["k8s", "--shards", "4", "--data", "/data/run 1", "--image", "reg/s3gym:1", "--pvc", "s3gym-data", ...MATRIX]);
    const yaml = k8sManifest(job);
    const [shards, report] = yaml.split("\n---\n");
    for (const line of ["kind: Job", "  completionMode: Indexed", "  completions: 4", "  parallelism: 4"]) expect(shards).toContain(`${line}\n`);
    const command = (doc: string) => JSON.parse(/command: (\[.*\])$/m.exec(doc)![1]!) as string[];
    expect(command(shards!)).toEqual(["s3gym", "run", "--shard", "auto", "--shard-count", "4", ...MATRIX, "--data", "/data/run 1"]);
    expect(shards).toContain('persistentVolumeClaim: {claimName: "s3gym-data"}');
    expect(shards).toContain('mountPath: "/data/run 1"');
    const [shell, flag, line] = command(report!);
    expect([shell, flag]).toEqual(["/bin/sh", "-c"]);
    expect(line).toBe(
      "until s3gym status --data '/data/run 1' >/dev/null; do sleep 60; done; exec s3gym report --data '/data/run 1/shard-1-of-4' --data '/data/run 1/shard-2-of-4' --data '/data/run 1/shard-3-of-4' --data '/data/run 1/shard-4-of-4' --out '/data/run 1/report'",
    );
  });

  it("needs an image, a claim and an absolute --data", () => {
    expect(() => parseClusterArgs(["k8s", "--shards", "2", "--data", "/d", ...MATRIX])).toThrow(/k8s needs --image IMAGE.*--pvc CLAIM/);
    expect(() => parseClusterArgs(["k8s", "--shards", "2", "--data", "rel", "--image", "i", "--pvc", "p", ...MATRIX])).toThrow(/absolute path inside the container/);
  });
});
