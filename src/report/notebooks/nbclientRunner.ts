/**
 * The Jupyter engine: one notebook through nbclient and the tslab kernel, with a Python driver
 * instead of `jupyter nbconvert --execute`, for three reasons nbconvert's command line cannot meet:
 *
 * - a failing cell's message: tslab reports errors on stderr and an empty `execute_reply`, so
 *   nbconvert says only "<Error>: "; the driver prints the failing cell's own stderr (the error and
 *   its stack) and records it as an nbformat `error` output;
 * - kernel start-up: a slow start ("Kernel didn't respond in 60 seconds" on a loaded machine) gets
 *   a longer timeout (`STARTUP_TIMEOUT_S`) and one retry, told apart from a failing cell by its exit code;
 * - execution counts: tslab's replies carry none; the driver numbers the cells it ran, as the Node
 *   engine does, so "every code cell ran" reads the same in both engines' notebooks.
 *
 * The driver is Python source passed with `-c` (the kit ships no .py file to find).
 */
import { spawn } from "node:child_process";
import { basename, join, resolve } from "node:path";
import { JUPYTER_NOISE, type JupyterSetup } from "./jupyter.js";

/** Seconds the kernel may take to start (nbclient's default is 60, too short on a loaded machine). */
export const STARTUP_TIMEOUT_S = 180;

/** Exit code of the driver when the kernel did not start (retryable), distinct from a failing cell (1). */
const KERNEL_START_FAILED = 3;

const DRIVER = String.raw`
import os, re, sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

src, dst, timeout, startup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
nb = nbformat.read(src, as_version=4)
client = NotebookClient(nb, timeout=timeout, startup_timeout=startup, kernel_name="tslab",
                        resources={"metadata": {"path": os.path.dirname(os.path.abspath(src))}})

def write():
    tmp = dst + ".tmp"
    nbformat.write(nb, tmp)
    os.replace(tmp, dst)

def stderr_of(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") == "stderr")

try:
    client.km = client.create_kernel_manager()
    client.start_new_kernel()
    client.start_new_kernel_client()
except Exception as e:
    sys.stderr.write("kernel start failed: %s: %s\n" % (type(e).__name__, e))
    try:
        client._cleanup_kernel()
    except Exception:
        pass
    sys.exit(${KERNEL_START_FAILED})

count = 0
code = 0
try:
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        count += 1
        try:
            client.execute_cell(cell, index)
        except CellExecutionError:
            text = stderr_of(cell).strip() or "(the kernel printed nothing on stderr)"
            first = text.splitlines()[0]
            # The exception line ("RangeError: boom"), after node's source excerpt when there is one.
            m = next(filter(None, (re.match(r"^([A-Za-z_][\w.]*): (.+)$", l) for l in text.splitlines())), None)
            cell.outputs.append(nbformat.v4.new_output("error", ename=m.group(1) if m else "Error",
                                evalue=m.group(2) if m else first, traceback=text.splitlines()))
            cell.execution_count = count
            sys.stderr.write("cell %d (id %s) failed:\n%s\n" % (index + 1, cell.get("id", "?"), text))
            code = 1
            break
        cell.execution_count = count
finally:
    try:
        client._cleanup_kernel()
    except Exception:
        pass
write()
sys.exit(code)
`;

function runDriver(setup: JupyterSetup, notebook: string, dst: string, env: Record<string, string>, timeoutS: number): Promise<{ code: number; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(setup.python, ["-c", DRIVER, resolve(notebook), dst, String(timeoutS), String(STARTUP_TIMEOUT_S)], {
      env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1", ...env, PATH: setup.path },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    const keep = (d: Buffer): void => {
      stderr = (stderr + d.toString()).slice(-200_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolvePromise({
        code: code ?? (signal ? 1 : 0),
        stderr: stderr
          .split("\n")
          .filter((l) => !JUPYTER_NOISE.test(l))
          .join("\n"),
      }),
    );
  });
}

/**
 * Executes one notebook into `<outDir>/<same name>` with the tslab kernel, the kernel's working
 * directory the notebook's folder. A kernel that does not start is retried once; a failing cell
 * rejects with that cell's error (the executed copy, up to the error, is still written).
 */
export async function executeWithNbclient(setup: JupyterSetup, notebook: string, outDir: string, env: Record<string, string>, timeoutS: number): Promise<void> {
  const dst = join(outDir, basename(notebook));
  let r = await runDriver(setup, notebook, dst, env, timeoutS);
  if (r.code === KERNEL_START_FAILED) r = await runDriver(setup, notebook, dst, env, timeoutS);
  if (r.code === 0) return;
  const what = r.code === KERNEL_START_FAILED ? "the tslab kernel did not start (twice)" : "failed";
  throw new Error(`notebook ${basename(notebook)} ${what} (jupyter engine, exit ${r.code}):\n${r.stderr.split("\n").slice(-40).join("\n").trim()}`);
}
