/** Runs a CLI command with stdout and stderr captured (restored afterwards). */
import { vi } from "vitest";

export async function run(cmd: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ rc: number; out: string; err: string }> {
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  try {
    return { rc: await cmd(argv), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}
