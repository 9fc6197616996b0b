/** nbformat reading and writing, and how `s3gym notebooks` names notebooks. */
import { describe, expect, it } from "vitest";
import { diskBundle, parseNotebook, serializeNotebook, splitLines } from "../../../src/report/notebooks/nbformat.js";
import { selectNotebooks } from "../../../src/report/notebooks/engines.js";

describe("nbformat", () => {
  it("splits text into lines the way nbformat stores it", () => {
    expect(splitLines("a\nb\n")).toEqual(["a\n", "b\n"]);
    expect(splitLines("a\n\nb")).toEqual(["a\n", "\n", "b"]);
    expect(splitLines("")).toEqual([]);
  });

  it("stores text kinds and SVG as lines, PNG and JSON unchanged", () => {
    expect(diskBundle({ "text/plain": "x\ny", "image/svg+xml": "<svg>\n</svg>", "image/png": "iVBOR\nw==", "application/json": { a: 1 } })).toEqual({
      "text/plain": ["x\n", "y"],
      "image/svg+xml": ["<svg>\n", "</svg>"],
      "image/png": "iVBOR\nw==",
      "application/json": { a: 1 },
    });
  });

  it("writes keys sorted with indent 1, as Jupyter does", () => {
    const nb = parseNotebook('{"nbformat":4,"nbformat_minor":5,"cells":[{"source":"x","cell_type":"code","metadata":{}}],"metadata":{}}', "t.ipynb");
    expect(serializeNotebook(nb)).toBe('{\n "cells": [\n  {\n   "cell_type": "code",\n   "metadata": {},\n   "source": "x"\n  }\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 5\n}\n');
  });

  it("rejects what is not an nbformat 4 notebook, naming the file and the field", () => {
    expect(() => parseNotebook("{", "a.ipynb")).toThrow(/^a\.ipynb: not JSON/);
    expect(() => parseNotebook('{"nbformat":3,"nbformat_minor":0,"cells":[]}', "b.ipynb")).toThrow(/^b\.ipynb: not an nbformat 4 notebook: nbformat/);
    expect(() => parseNotebook('{"nbformat":4,"nbformat_minor":5,"cells":[{"cell_type":"code"}]}', "c.ipynb")).toThrow(/c\.ipynb: not an nbformat 4 notebook: cells\.0\.source/);
  });
});

describe("selectNotebooks", () => {
  const all = ["/k/notebooks/00_explore_logs.ipynb", "/k/notebooks/01_main_results.ipynb", "/k/notebooks/010_extra.ipynb"];
  it("takes file names, stems or unique prefixes, in execution order; all when none given", () => {
    expect(selectNotebooks(all, [])).toEqual(all);
    expect(selectNotebooks(all, ["01_main_results.ipynb", "00"])).toEqual([all[0], all[1]]);
    expect(selectNotebooks(all, ["notebooks/010_extra"])).toEqual([all[2]]);
  });

  it("an unknown or ambiguous name lists the notebooks", () => {
    expect(() => selectNotebooks(all, ["07"])).toThrow("no notebook matches '07': expected one of 00_explore_logs, 01_main_results, 010_extra");
    expect(() => selectNotebooks(all, ["0"])).toThrow("several notebooks match '0'");
  });
});
