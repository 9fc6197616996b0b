/**
 * A figure's caption, written apart from the image: `<name>.caption.md` and `<name>.caption.tex`.
 * The text is the figure's own title and caption lines (what each mark, line and band is, n, the
 * interval method with B and the seed: the spec builders write them), then what it estimates. Every
 * line goes through the LaTeX escaping of the tables (model and game names come from logs).
 */
import type { TopLevelSpec } from "vega-lite";
import { latexText } from "../latex.js";

/** The title and the caption lines of a spec (its `title.text` and `title.subtitle`). */
export function captionParts(spec: TopLevelSpec): { title: string; lines: string[] } {
  const t = (spec as { title?: unknown }).title;
  const list = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
  if (t !== null && typeof t === "object" && !Array.isArray(t)) {
    const o = t as { text?: unknown; subtitle?: unknown };
    return { title: list(o.text).join(" "), lines: joinWrapped(list(o.subtitle)) };
  }
  return { title: list(t).join(" "), lines: [] };
}

/** Caption lines the builders wrapped for the image, joined back into sentences (a new one starts upper-case). */
function joinWrapped(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const l of lines.map((x) => x.trim()).filter((x) => x !== "")) {
    const prev = out[out.length - 1];
    if (prev !== undefined && !/[.)]$/.test(prev) && !/^[A-Z]/.test(l)) out[out.length - 1] = `${prev} ${l}`;
    else out.push(l);
  }
  return out;
}

/** `<name>.caption.md`: the title in bold, the caption, the estimand. */
export function captionMarkdown(spec: TopLevelSpec, estimand?: string): string {
  const { title, lines } = captionParts(spec);
  const md = (s: string): string => s.replace(/([\\`*_[\]<>|])/g, "\\$1");
  return [`**${md(title)}.** ${lines.map(md).join(" ")}`.trimEnd(), ...(estimand ? ["", `Estimand: ${md(estimand)}`] : []), ""].join("\n");
}

/**
 * `<name>.caption.tex`: `\caption{...}\label{fig:<name>}`, to `\input{<name>.caption}` inside the
 * figure environment (a `\caption` cannot take an `\input` as its argument).
 */
export function captionTex(spec: TopLevelSpec, name: string, estimand?: string): string {
  const { title, lines } = captionParts(spec);
  const body = [`\\textbf{${latexText(title)}.}`, ...lines.map(latexText), ...(estimand ? [`Estimand: ${latexText(estimand)}`] : [])];
  return `\\caption{${body.join(" ")}}\\label{fig:${name.replace(/[^A-Za-z0-9_-]/g, "-")}}%\n`;
}
