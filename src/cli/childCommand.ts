/** How the CLI starts itself as a child process (reproduce's jobs, the SQL cache warm-up). */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The node arguments that run `s3gym ...args` in a child process: this kit's own entry, dist/cli/main.js
 * when built, src/cli/main.ts under tsx (tests), with this process's loader flags.
 */
export function s3gymArgv(...args: string[]): string[] {
  const here = fileURLToPath(import.meta.url);
  return [...process.execArgv, join(dirname(here), here.endsWith(".ts") ? "main.ts" : "main.js"), ...args];
}
