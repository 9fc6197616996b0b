/**
 * "Where does X go" for a CLI command, measured: a command is a module exporting
 * `(argv) => Promise<number>` plus one row of the command table in src/cli/main.ts. Here the module is
 * this file and the row is `registerCommand` (a test cannot edit main.ts): `s3gym toy` then shows in
 * the usage, runs through `main`, and its `--help` and a bad flag reach the user through
 * `withExitCode` alone (exit 0 and 2), as for the kit's own commands.
 */
import { describe, expect, it, vi } from "vitest";
import { main, registerCommand } from "../../src/cli/main.js";
import { HelpRequested, UsageError } from "../../src/cli/shared/args.js";

const USAGE = "s3gym toy --times N: prints 'toy' N times";
let printed: string[] = [];

/** The toy command: owns its flags, throws for --help and bad input, never catches. */
async function toyCommand(argv: string[]): Promise<number> {
  if (argv.includes("--help")) throw new HelpRequested(USAGE);
  const at = argv.indexOf("--times");
  const n = at >= 0 ? Number(argv[at + 1]) : 1;
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--times must be a whole number >= 1 (got '${argv[at + 1]}')`);
  printed = Array.from({ length: n }, () => "toy");
  return 0;
}

describe("a toy command added with one table row", () => {
  registerCommand("toy", "a toy command defined in a test", toyCommand);

  it("runs through main with its own flags", async () => {
    expect(await main(["toy", "--times", "3"])).toBe(0);
    expect(printed).toEqual(["toy", "toy", "toy"]);
  });

  it("is listed in the usage, and a second row of the same name is refused", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      expect(await main(["--help"])).toBe(0);
      expect(out.mock.calls.map((c) => String(c[0])).join("")).toMatch(/\n {2}toy {10}a toy command defined in a test\n/);
    } finally {
      out.mockRestore();
    }
    expect(() => registerCommand("toy", "again", toyCommand)).toThrow(/already registered/);
  });

  it("--help exits 0 with its usage and a bad flag exits 2 naming the command, through withExitCode", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await main(["toy", "--help"])).toBe(0);
      expect(out.mock.calls.map((c) => String(c[0])).join("")).toContain(USAGE);
      expect(await main(["toy", "--times", "0"])).toBe(2);
      expect(err.mock.calls.map((c) => String(c[0])).join("")).toContain("s3gym toy: --times must be a whole number >= 1 (got '0')");
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});
