/**
 * A figure's SVG to a vector PDF: pdfkit writes the PDF, svg-to-pdfkit draws the SVG into it (paths,
 * text as text), with DejaVu Sans embedded as a subset (the `dejavu-fonts-ttf` package ships it, so
 * the PDF is the same on every machine and needs no system font). No browser, no canvas, no network.
 *
 * Pitfalls met (docs/paper.md repeats them for users):
 * - pdfkit stamps the creation time into the file and its ID: the PDF's date is fixed here, so the
 *   same figure gives the same bytes (the notebooks' byte comparison with `report` depends on it).
 * - svg-to-pdfkit takes SVG pixels as 3/4 of a point unless `assumePt`; the print layout makes one
 *   SVG pixel one point, so `assumePt` is on and the page is the SVG's size in points.
 * - svg-to-pdfkit throws on a dash with a zero length (`stroke-dasharray="1,0"`, the solid History
 *   line's dash, so that its legend shows a line): such a dash is solid, and is written as no dash.
 * - Fonts: svg-to-pdfkit asks for a font by family; every family maps to the embedded DejaVu Sans
 *   (bold to DejaVu Sans Bold). A theme's other family is used in the SVG and PNG; the PDF keeps
 *   DejaVu's glyphs (same metrics class, so the layout holds).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import PDFDocument from "pdfkit";
import SVGtoPDF from "svg-to-pdfkit";
import { cachedBytes } from "./renderCache.js";

const require = createRequire(import.meta.url);

/** The embedded fonts' bytes (the package's own TTFs), read once a process. */
const fonts = new Map<string, Buffer>();
function fontFile(name: string): Buffer {
  let bytes = fonts.get(name);
  if (bytes === undefined) {
    bytes = readFileSync(join(dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf", name));
    fonts.set(name, bytes);
  }
  return bytes;
}

/** A fixed date for the PDF's metadata and ID: bytes depend on the figure alone. */
const FIXED_DATE = new Date(Date.UTC(2000, 0, 1));

/** The SVG with every dash that has a zero (or negative) length dropped: drawn solid, as a browser does. */
export function solidZeroDashes(svg: string): string {
  return svg.replace(/\sstroke-dasharray="([^"]*)"/g, (attr, v: string) =>
    v
      .split(/[\s,]+/)
      .filter((x) => x !== "")
      .some((x) => !(Number(x) > 0))
      ? ""
      : attr,
  );
}

/** The PDF of an SVG whose pixels are points, on a page of `widthPt` x `heightPt`. */
export function svgToPdf(svg: string, widthPt: number, heightPt: number, title = ""): Promise<Buffer> {
  return cachedBytes("pdf", `${widthPt}x${heightPt}\n${title}\n${svg}`, () => svgToPdfNow(svg, widthPt, heightPt, title));
}

function svgToPdfNow(svg: string, widthPt: number, heightPt: number, title: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: [widthPt, heightPt],
      margin: 0,
      autoFirstPage: true,
      compress: true,
      info: { Title: title, Producer: "s3gym (pdfkit, svg-to-pdfkit)", Creator: "s3gym", CreationDate: FIXED_DATE, ModDate: FIXED_DATE },
    });
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
    doc.registerFont("s3gym-regular", fontFile("DejaVuSans.ttf"));
    doc.registerFont("s3gym-bold", fontFile("DejaVuSans-Bold.ttf"));
    try {
      SVGtoPDF(doc, solidZeroDashes(svg), 0, 0, {
        width: widthPt,
        height: heightPt,
        assumePt: true,
        fontCallback: (_family, bold) => (bold ? "s3gym-bold" : "s3gym-regular"),
        warningCallback: () => {},
      });
      doc.end();
    } catch (e) {
      reject(e);
    }
  });
}
