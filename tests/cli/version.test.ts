import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("s3gym --version", () => {
  it("prints the package's version, the checkout's commit and Node's version, and exits 0", async () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "src/cli/main.ts", flag]);
      expect(stderr).toBe("");
      // The version comes from package.json, not from a constant the code could let drift.
      expect(stdout).toMatch(new RegExp(`^s3gym ${pkg.version.replace(/\./g, "\\.")}( \\(commit [0-9a-f]{12}(, uncommitted changes)?\\))?, node ${process.version.replace(/\./g, "\\.")}\\n$`));
    }
  });
});
