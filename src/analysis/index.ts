/**
 * The analysis API in one import, for the CLI, the notebooks (via `dist/analysis/index.js`) and the
 * kit's root index. Everything here is a plain function or type; danfojs appears only in the Frames
 * type, and is loaded lazily by loadFrames.
 */
export * from "./stats/bootstrap.js";
export * from "./metrics/coupling.js";
export * from "./tables/couplingTables.js";
export * from "./metrics/curves.js";
export * from "./metrics/gain.js";
export * from "./stats/signFlip.js";
export * from "./tables/curveTables.js";
export * from "./load/dataset.js";
export * from "./load/frames.js";
export * from "./sql/logDatabase.js";
export * from "./sql/sqlSchema.js";
export * from "./metrics/judging.js";
export * from "./tables/judgingTables.js";
export * from "./tables/reportParts.js";
export * from "./load/runs.js";
export * from "./tables/table.js";
export * from "./stats/compare.js";
export * from "./stats/coverage.js";
export * from "./stats/intervals.js";
export * from "./stats/power.js";
export * from "./stats/seedCurves.js";
export * from "./metrics/cost.js";
export * from "./metrics/viewMetrics.js";
export * from "./tables/viewTables.js";
export * from "./load/verifiedData.js";
export * from "./metrics/verifiedFacts.js";
export * from "./tables/verifiedTables.js";
