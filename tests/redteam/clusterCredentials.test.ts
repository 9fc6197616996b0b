/**
 * Red team, issue 44 item 9: `s3gym cluster` and URL credentials.
 *
 * Before: `cluster slurm` and `cluster k8s` wrote `--base-url "http://user:KEY@host/v1"` verbatim into
 * submit.sh (mode 755) and job.yaml, where every other output redacts it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clusterCommand } from "../../src/cli/cluster/cluster.js";

const KEY = "sk-SENTINEL0123456789abcdef";
const URLS = `http://alice:${KEY}@gpu01:8000/v1,https://bob:${encodeURIComponent(KEY)}x@gpu02:8000/v1`;
const RUN = ["--models", "openai:qwen", "--games", "nullify", "--pathways", "none", "--base-url", URLS];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((f) => (f.isDirectory() ? filesUnder(join(dir, f.name)) : [join(dir, f.name)]));
}

async function cluster(argv: string[]): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(t) }, env: {} };
  const code = await clusterCommand(argv, io);
  return { code, text: out.join("") };
}

describe("cluster job files never hold URL credentials", () => {
  it("slurm: the key is in no written file nor the output; the job resolves it from the environment at run time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3-cluster-key-"));
    const data = join(dir, "data");
    const submit = join(dir, "submit.sh");
    const r = await cluster(["slurm", "--shards", "2", "--data", data, "--out", submit, "--s3gym", "printf %s\\n", ...RUN]);
    expect(r.code, r.text).toBe(0);
    expect(r.text).not.toContain(KEY);
    for (const f of filesUnder(dir)) expect(readFileSync(f, "utf8"), f).not.toContain(KEY);
    const script = readFileSync(submit, "utf8");
    expect(script).not.toContain("alice:");

    // A fake sbatch: run the job script it is fed, with the environment the submitter exported.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "sbatch"), `#!/bin/bash\nn=$(ls "$FAKE_DIR"/call-*.script 2>/dev/null | wc -l)\ncat > "$FAKE_DIR/call-$n.script"\necho $((100 + n))\n`);
    execFileSync("chmod", ["755", join(bin, "sbatch")]);
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAKE_DIR: dir };
    // Without the variables the script stops before submitting, naming what to export.
    let refused = "";
    try {
      execFileSync("bash", [submit], { cwd: dir, env, encoding: "utf8", stdio: "pipe" });
    } catch (e) {
      refused = String((e as { stderr?: string }).stderr);
    }
    expect(refused).toMatch(/S3GYM_URL_CREDENTIALS_1.*export S3GYM_URL_CREDENTIALS_1=USER:KEY/);
    expect(readdirSync(dir).some((f) => f.startsWith("call-"))).toBe(false);
    const creds = { S3GYM_URL_CREDENTIALS_1: `alice:${KEY}`, S3GYM_URL_CREDENTIALS_2: `bob:${encodeURIComponent(KEY)}x` };
    execFileSync("bash", [submit], { cwd: dir, env: { ...env, ...creds }, encoding: "utf8" });
    const job = readFileSync(join(dir, "call-0.script"), "utf8");
    expect(job).not.toContain(KEY);
    // The node's words, with the credentials from the task's environment (sbatch --export=ALL).
    const words = execFileSync("bash", ["-c", /^exec .*$/m.exec(job)![0]], { cwd: dir, env: { ...process.env, ...creds }, encoding: "utf8" })
      .split("\n")
      .slice(0, -1);
    expect(words).toEqual(["run", "--shard", "auto", ...RUN, "--data", data]);
  });

  it("k8s: the key is in no written file; the pods read it from a Secret", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3-k8s-key-"));
    const out = join(dir, "job.yaml");
    const r = await cluster(["k8s", "--shards", "2", "--data", "/data", "--image", "img", "--pvc", "claim", "--out", out, ...RUN]);
    expect(r.code, r.text).toBe(0);
    for (const f of filesUnder(dir)) expect(readFileSync(f, "utf8")).not.toContain(KEY);
    const yaml = readFileSync(out, "utf8");
    expect(yaml).toContain('"http://$(S3GYM_URL_CREDENTIALS_1)@gpu01:8000/v1,https://$(S3GYM_URL_CREDENTIALS_2)@gpu02:8000/v1"');
    expect(yaml).toMatch(/- name: S3GYM_URL_CREDENTIALS_2\n\s+valueFrom: \{secretKeyRef: \{name: "s3gym-endpoint", key: "url-credentials-2"\}\}/);
    expect(yaml).toContain("kubectl create secret generic s3gym-endpoint --from-literal=url-credentials-1=USER:KEY");
  });
});
