/**
 * The files `s3gym init DIR` writes: a commented study file, its JSON Schema, a notebook that
 * imports the kit as a package, a `.gitignore` for data and outputs, and a README with the next
 * commands. Pure: text in, text out (init.ts writes them).
 */
import { STUDY_FILE_NAME } from "./loadStudy.js";
import { studyJsonSchema } from "./studySchema.js";

/** The JSON Schema's file name beside the study file. */
export const SCHEMA_FILE_NAME = "s3gym.schema.json";
/** The notebook's file name. */
export const NOTEBOOK_FILE_NAME = "analysis.ipynb";

export interface InitOptions {
  /** The model spec of the user's model (`openai:<served id>`). */
  model: string;
  /** Its endpoint. */
  baseUrl: string;
  /** The NAME of the variable holding its key. */
  apiKeyEnv: string;
}

export const INIT_DEFAULTS: InitOptions = { model: "openai:my-model", baseUrl: "http://127.0.0.1:8000/v1", apiKeyEnv: "MY_MODEL_KEY" };

/** The commented study file. */
export function studyYaml(o: InitOptions): string {
  return `# yaml-language-server: $schema=./${SCHEMA_FILE_NAME}
# An s3gym study: one experiment written down (docs/study.md in the kit lists every key).
#   s3gym run ${STUDY_FILE_NAME} --smoke    a minute-long end-to-end check of every endpoint (into smoke/)
#   s3gym run ${STUDY_FILE_NAME}            the study itself (resumable: rerun the same command)
# Paths are relative to this file's folder. A flag given on the command line overrides a value here.

models:
  # Your model behind an OpenAI-compatible endpoint (vLLM, SGLang, Ollama, a provider).
  - alias: mine                      # the name runs and tables use
    spec: ${o.model}            # openai:<the model id the server serves>
    base_url: ${o.baseUrl}
    api_key_env: ${o.apiKeyEnv}          # the NAME of the variable holding the key, never the key (a local server: ${o.apiKeyEnv}=EMPTY)
    concurrency: 8                   # calls in flight on this endpoint
    # price: { input: 0.15, output: 0.60, cached_input: 0.075 }   # dollars per million tokens (cost tables, caps)
    # sampling: { temperature: 0.7, max_tokens: 4096 }
  # A baseline is one line (a built-in policy, or another openai:<model>):
  - builtin:heuristic

games: all                           # or a list: [chess, minesweeper, nullify, tetris, snake, pvz, trust]
pathways: [history, memory]          # none, history, memory, verified
# control: true                      # (default) play the 'none' control that gain_vs_none pairs each pathway with

# The protocol, stated once for every model (a data folder holds one protocol). Keys are s3gym run's
# flags; left out = the paper's default.
protocol:
  explore-episodes: 30
  checkpoint-every: 3
  eval-episodes: 3                   # the paper's; with 3 no gain can reach p < 0.05 (the exact test's smallest p is 0.25):
                                     # 10 can (the kit's reproduction plays 10); s3gym power sizes it from a pilot
  max-steps: 64
  context-tokens: 100000             # lower it for every model if one endpoint's window is smaller
  max-new-tokens: 14000
  # reward-visibility: hidden
  # strict-contract: false
  # keep-think: false

# views: { names: [eval, id, replay], view-episodes: 3, replay-episodes: 3 }
seeds: [0]                           # run seeds: one replicate of the matrix each; with 3 or more the tables'
                                     # intervals resample runs and speak of the model, not of this one run
# caps: { max-usd: 20 }              # stop between episodes before spend passes this
# endpoint: { timeout-ms: 600000, max-retries: 5 }

data: data                           # the step logs
out: figures                         # tables, figures, executed notebooks, the viewer
# figures: { size: column, tex-intervals: cell }   # s3gym report: print width column|page|slide, a theme file, LaTeX layout (docs/paper.md)

smoke:                               # s3gym run ${STUDY_FILE_NAME} --smoke
  data: smoke/data
  out: smoke/figures
  protocol: { explore-episodes: 1, checkpoint-every: 1, eval-episodes: 1, max-steps: 4 }
`;
}

/** The study's JSON Schema, pretty-printed. */
export function schemaJson(): string {
  return `${JSON.stringify(studyJsonSchema(), null, 2)}\n`;
}

export function gitignore(): string {
  return `# s3gym: logs and outputs are rebuilt from the study (keep the study file, the schema and your notebooks)
/data/
/figures/
/smoke/
/node_modules/
.env
`;
}

export function readme(dir: string): string {
  return `# ${dir}: an s3gym study

\`${STUDY_FILE_NAME}\` is the whole experiment (models, games, pathways, protocol, seeds, folders);
\`${NOTEBOOK_FILE_NAME}\` analyses its logs with the kit's library. Edit the study's \`models:\` first.

The next three commands, from this folder:

\`\`\`
npx s3gym run ${STUDY_FILE_NAME} --smoke       # a minute: every endpoint end to end, into smoke/
npx s3gym run ${STUDY_FILE_NAME}               # the study (resumable), into data/
npx s3gym report ${STUDY_FILE_NAME}            # tables and figures, into figures/
\`\`\`

Then \`npx s3gym notebooks ${STUDY_FILE_NAME} ${NOTEBOOK_FILE_NAME}\` runs the notebook headless into
figures/notebooks/, and \`npx s3gym view ${STUDY_FILE_NAME}\` writes a browsable site into figures/view/.
Add \`--smoke\` to any of them to read the smoke run instead.
`;
}

/** A notebook cell. */
function cell(id: string, type: "markdown" | "code", text: string): Record<string, unknown> {
  const source = text.split("\n").map((l, i, all) => (i < all.length - 1 ? `${l}\n` : l));
  return type === "code" ? { cell_type: "code", execution_count: null, id, metadata: {}, outputs: [], source } : { cell_type: "markdown", id, metadata: {}, source };
}

/** The study's notebook: imports `s3gym` as a package; its folders come from the study (or the environment `s3gym notebooks` sets). */
export function notebookJson(): string {
  const nb = {
    cells: [
      cell("study-00", "markdown", "# The study's results\n\nThe same builders as `s3gym report`: every table as data (rows of point + 95% bootstrap interval)."),
      cell(
        "study-01",
        "code",
        [
          'import * as path from "path";',
          'import { notebookSettings, notebookDataset, buildReport, showTable, writeTables } from "s3gym";',
          "",
          "// `s3gym notebooks s3gym.yaml analysis.ipynb` sets S3GYM_DATA and S3GYM_OUT from the study (with --smoke: its",
          "// smoke folders); opened in Jupyter from this folder, the study's data/ and figures/ are the defaults.",
          "const settings = notebookSettings({",
          "  ...process.env,",
          '  S3GYM_DATA: process.env.S3GYM_DATA ?? path.resolve("data"),',
          '  S3GYM_OUT: process.env.S3GYM_OUT ?? path.resolve("figures"),',
          "});",
          "const report = buildReport(await notebookDataset(settings), { B: settings.B, seed: settings.seed });",
          'console.log(`${report.counts.runs} runs, ${report.counts.steps} steps from ${settings.data.join(", ")}`);',
        ].join("\n"),
      ),
      cell("study-02", "code", "showTable(report.tables.main_results);"),
      cell("study-03", "code", "showTable(report.tables.self_judging);"),
      cell(
        "study-04",
        "code",
        ['const written = await writeTables(report, settings.out, ["main_results", "self_judging"]);', 'console.log(written.map((f) => path.relative(settings.out, f)).join("\\n"));'].join("\n"),
      ),
    ],
    metadata: {
      kernelspec: { display_name: "TypeScript", language: "typescript", name: "tslab" },
      language_info: { file_extension: ".ts", mimetype: "text/typescript", name: "typescript" },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
  return `${JSON.stringify(nb, null, 1)}\n`;
}
