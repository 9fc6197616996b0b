// svg-to-pdfkit ships no types: the one function the PDF writer calls (pdf.ts).
declare module "svg-to-pdfkit" {
  function SVGtoPDF(
    doc: PDFKit.PDFDocument,
    svg: string,
    x: number,
    y: number,
    options?: {
      width?: number;
      height?: number;
      preserveAspectRatio?: string;
      assumePt?: boolean;
      fontCallback?: (family: string, bold: boolean, italic: boolean) => string;
      warningCallback?: (warning: string) => void;
    },
  ): void;
  export default SVGtoPDF;
}
