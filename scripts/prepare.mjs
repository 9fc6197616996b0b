// npm's `prepare` hook: builds dist/ wherever npm makes a package of this folder (`npm pack`,
// `npm publish`, an install from a git URL), so the tarball and a git install hold the compiled kit
// and its `s3gym` command. Skipped under `npm ci` in a clone: `npm run reproduce` and `npm test`
// build first anyway, and a second build would cost every clean install ~30 s of CPU.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

if (process.env.npm_command === "ci") {
  console.log("s3gym prepare: build skipped under npm ci ('npm run build', 'npm run reproduce' and 'npm test' build the kit)");
} else {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
