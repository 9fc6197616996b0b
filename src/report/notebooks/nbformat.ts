/**
 * The slice of nbformat 4.5 the kit reads and writes: a notebook read from disk is validated (zod)
 * before a cell runs, and an executed notebook is written the way Jupyter writes one (keys sorted,
 * indent 1, text split into lines), so the two engines' notebooks read alike and diff cleanly.
 */
import { z } from "zod";
import { firstIssue } from "../../util/zodIssues.js";

/** nbformat's "multiline string": one string, or a list of lines each ending in "\n" but the last. */
const Multiline = z.union([z.string(), z.array(z.string())]);

const CellSchema = z.looseObject({
  cell_type: z.enum(["code", "markdown", "raw"]),
  id: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
  source: Multiline,
  outputs: z.array(z.unknown()).optional(),
  execution_count: z.number().int().nullable().optional(),
});

const NotebookSchema = z.looseObject({
  nbformat: z.literal(4),
  nbformat_minor: z.number().int(),
  metadata: z.record(z.string(), z.unknown()).default({}),
  cells: z.array(CellSchema),
});

/** A stream, rich display, last-expression value or failure of one cell (nbformat's four kinds). */
export type Output =
  | { output_type: "stream"; name: "stdout" | "stderr"; text: string[] }
  | { output_type: "display_data"; data: MimeBundle; metadata: Record<string, unknown> }
  | { output_type: "execute_result"; data: MimeBundle; metadata: Record<string, unknown>; execution_count: number }
  | { output_type: "error"; ename: string; evalue: string; traceback: string[] };

/** MIME type -> content: text kinds as lines, binary kinds (image/png) as base64 text, JSON kinds as values. */
export type MimeBundle = Record<string, unknown>;

export type Cell = z.infer<typeof CellSchema>;
export type Notebook = z.infer<typeof NotebookSchema>;

/**
 * Parses notebook JSON text; a file that is not nbformat 4 gets an error naming the file and the
 * first wrong field, never a half-run notebook.
 */
export function parseNotebook(text: string, name: string): Notebook {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: not JSON (${(e as Error).message}); a notebook is nbformat 4 JSON`);
  }
  const r = NotebookSchema.safeParse(raw);
  if (!r.success) {
    const { field, detail } = firstIssue(r.error);
    throw new Error(`${name}: not an nbformat 4 notebook: ${field}: ${detail}`);
  }
  return r.data;
}

/** A cell's source as one string. */
export function sourceText(source: string | string[]): string {
  return Array.isArray(source) ? source.join("") : source;
}

/** Splits text into nbformat lines (each keeps its "\n"; the last may lack one), as nbformat does. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** MIME types nbformat stores as lines besides `text/*`. */
const SPLIT_MIMES = new Set(["application/javascript", "image/svg+xml"]);

/** A bundle in nbformat's on-disk form: text kinds split into lines, the others unchanged. */
export function diskBundle(data: Record<string, unknown>): MimeBundle {
  const out: MimeBundle = {};
  for (const [mime, value] of Object.entries(data)) {
    out[mime] = typeof value === "string" && (mime.startsWith("text/") || SPLIT_MIMES.has(mime)) ? splitLines(value) : value;
  }
  return out;
}

/** Recursively sorts object keys (arrays keep their order), as nbformat's writer does. */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortedKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** A notebook as Jupyter writes it: keys sorted, indent 1, trailing newline. */
export function serializeNotebook(nb: Notebook): string {
  return `${JSON.stringify(sortedKeys(nb), null, 1)}\n`;
}

/** The outputs of every code cell of a notebook, in order. */
export function cellOutputs(nb: Notebook): Output[] {
  return nb.cells.flatMap((c) => (c.cell_type === "code" ? ((c.outputs ?? []) as Output[]) : []));
}
