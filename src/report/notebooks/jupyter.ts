/**
 * What the Jupyter engine needs: Debian's (or pip's) Jupyter and the tslab kernel spec (the driver that
 * runs a notebook through them is nbclientRunner.ts).
 * `checkJupyter` finds what is missing and says exactly how to install it, instead of letting
 * nbconvert fail obscurely halfway through a reproduction.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

export interface JupyterSetup {
  python: string;
  /** PATH with node_modules/.bin first, so the kernel spec's `tslab` command resolves. */
  path: string;
}

export const INSTALL_HINTS = {
  debian: "sudo apt-get update && sudo apt-get install -y jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel",
  pip: "python3 -m pip install nbconvert nbclient jupyter_client ipykernel",
  kernel: "npx tslab install --python=/usr/bin/python3   # or --python=$(which python3) after a pip install",
};

/** Environment that quiets debugpy's frozen-modules warning (noise on every python start). */
const QUIET = { PYDEVD_DISABLE_FILE_VALIDATION: "1" };

/**
 * The python3 interpreters to try, in order. `S3GYM_PYTHON`, when set, is the only candidate (the
 * user chose it; silently using another would hide the mistake). Otherwise Debian's
 * `/usr/bin/python3` (which has the Jupyter modules of the Debian packages) comes before whatever
 * `python3` is first on PATH (a pyenv or conda one may lack them).
 */
export function pythonCandidates(env: Record<string, string | undefined> = process.env): string[] {
  const fromEnv = env.S3GYM_PYTHON?.trim();
  if (fromEnv) return [fromEnv];
  return ["/usr/bin/python3", "python3"];
}

export type JupyterCheck = { ok: true; setup: JupyterSetup } | { ok: false; problems: string[] };

/**
 * Checks, without running anything long: a python3 with nbconvert + nbclient + jupyter_client, the
 * tslab binary in `<root>/node_modules/.bin`, and a kernel spec named `tslab`. Each problem comes
 * with the command that fixes it.
 */
export function checkJupyter(root: string, env: Record<string, string | undefined> = process.env): JupyterCheck {
  const bin = resolve(root, "node_modules", ".bin");
  const path = `${bin}${delimiter}${env.PATH ?? ""}`;
  const childEnv = { ...env, ...QUIET, PATH: path };
  const problems: string[] = [];
  const candidates = pythonCandidates(env);
  const python = candidates.find((p) => spawnSync(p, ["-c", "import nbconvert, nbclient, jupyter_client"], { stdio: "ignore", env: childEnv, timeout: 60_000 }).status === 0);
  if (!python) {
    const tried = env.S3GYM_PYTHON?.trim()
      ? `S3GYM_PYTHON=${candidates[0]} is not a python3 with nbconvert, nbclient and jupyter_client (missing, or the modules are not installed for it)`
      : `Jupyter (nbconvert + nbclient + jupyter_client) is not installed for any python3 tried (${candidates.join(", ")})`;
    problems.push(
      `${tried}. Install it with one of:\n` +
        `  Debian/Ubuntu: ${INSTALL_HINTS.debian}\n` +
        `  pip:           ${INSTALL_HINTS.pip}\n` +
        `  then register the tslab kernel with that python3: ${INSTALL_HINTS.kernel}\n` +
        `  (if the python3 you installed into is not /usr/bin/python3, also set S3GYM_PYTHON to it)`,
    );
  }
  if (!existsSync(join(bin, "tslab"))) {
    problems.push(`the tslab kernel is not installed in ${bin}: run 'npm ci' in ${root} first`);
  } else if (python) {
    const specs = spawnSync(python, ["-m", "jupyter", "kernelspec", "list", "--json"], { encoding: "utf8", env: childEnv, timeout: 60_000 });
    let hasTslab = false;
    try {
      hasTslab = specs.status === 0 && "tslab" in (JSON.parse(specs.stdout) as { kernelspecs: Record<string, unknown> }).kernelspecs;
    } catch {
      hasTslab = false;
    }
    if (!hasTslab) {
      problems.push(
        `the tslab kernel spec is not registered with Jupyter (${python} -m jupyter kernelspec list shows no 'tslab').\n  Run: ${INSTALL_HINTS.kernel.replace("/usr/bin/python3", python)}`,
      );
    }
  }
  return problems.length === 0 && python ? { ok: true, setup: { python, path } } : { ok: false, problems };
}

/** The message `reproduce` prints when `checkJupyter` fails. */
export function formatJupyterProblems(problems: readonly string[]): string {
  return [
    "The notebooks need Jupyter (nbconvert + nbclient) and the tslab kernel; missing:",
    ...problems.map((p) => `- ${p}`),
    "(Or run without the notebooks: 's3gym reproduce --no-notebooks' still writes every table and figure.)",
    "",
  ].join("\n");
}

/** Lines of a Jupyter process's stderr that are noise (debugpy's warnings), not the error. */
export const JUPYTER_NOISE = /Debugger warning|frozen modules|PYDEVD|Debugging will proceed|Xfrozen_modules|^\s*$/;
