/**
 * The analysis API in one import, for the CLI, the notebooks (via `dist/analysis/index.js`) and the
 * kit's root index. Everything here is a plain function or type; danfojs appears only in the Frames
 * type, and is loaded lazily by loadFrames.
 */
export * from "./bootstrap.js";
export * from "./coupling.js";
export * from "./couplingTables.js";
export * from "./curves.js";
export * from "./gain.js";
export * from "./signFlip.js";
export * from "./curveTables.js";
export * from "./dataset.js";
export * from "./frames.js";
export * from "./logDatabase.js";
export * from "./sqlSchema.js";
export * from "./judging.js";
export * from "./judgingTables.js";
export * from "./report.js";
export * from "./runs.js";
export * from "./table.js";
export * from "./compare.js";
export * from "./coverage.js";
export * from "./intervals.js";
export * from "./power.js";
export * from "./seedCurves.js";
export * from "./cost.js";
export * from "./viewMetrics.js";
export * from "./viewTables.js";
export * from "./verifiedData.js";
export * from "./verifiedFacts.js";
export * from "./verifiedTables.js";
