#!/usr/bin/env node
/**
 * scripts/compare-logs.mjs: proves that a change to the kit's per-step machinery (token counting,
 * prompt building, log writing) leaves every byte the kit writes unchanged.
 *
 *   node scripts/compare-logs.mjs play MAIN_JS DIR   plays the fixed matrix below with MAIN_JS
 *                                                    (e.g. dist/cli/main.js, or a copy of an older
 *                                                    build) into DIR/data, then `report` into DIR/figures
 *   node scripts/compare-logs.mjs diff DIR_A DIR_B   compares every file under the two DIRs byte for
 *                                                    byte (after the normalisation below) and exits 1
 *                                                    on any difference, naming the files
 *
 * Typical use: build the old commit, copy its dist/ away, `play` it into /tmp/x/base; build the new
 * one, `play` into /tmp/x/new; `diff /tmp/x/base /tmp/x/new`.
 *
 * Normalised before comparing (wall-clock values, which differ between any two runs of the same
 * code): JSON fields whose name says they are a time of day or a duration (see WALL_CLOCK_KEYS), and
 * report.json's absolute data/out paths. Everything else (steps, calls, scores, token counts, prompts,
 * experience, tables, SVGs) must match exactly.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The runs played: every offline model on every game, the experience pathways, the verified pathway and views. */
const SCHEDULE = ["--explore-episodes", "6", "--checkpoint-every", "3", "--eval-episodes", "3", "--max-steps", "32"];
const MATRIX = [
  ["--models", "builtin:learner,builtin:heuristic,builtin:learner?judge=0.25", "--pathways", "none,history,memory"],
  ["--models", "builtin:random,builtin:perfect-judge", "--pathways", "history"],
  ["--models", "builtin:ceiling", "--pathways", "none"],
  ["--models", "builtin:learner", "--pathways", "verified"],
];
const VIEWS = ["--models", "builtin:learner", "--games", "tetris", "--pathways", "history", "--views", "eval,id,replay"];

/** JSON keys holding a wall-clock instant or a duration: these alone may differ between two runs. */
const WALL_CLOCK_KEYS = /^(ts|time|timestamp|started_at|finished_at|ended_at|created_at|updated_at|at|start|end|.*_ms|.*_at|wall_s|elapsed.*|duration.*|latency.*)$/i;

function play(mainJs, dir) {
  const data = join(dir, "data");
  const run = (args) => execFileSync(process.execPath, [mainJs, ...args], { stdio: ["ignore", "ignore", "inherit"] });
  for (const m of MATRIX) run(["run", ...m, "--games", "all", "--data", data, "--progress", "off", ...SCHEDULE]);
  run(["run", ...VIEWS, "--data", join(dir, "views"), "--progress", "off", ...SCHEDULE]);
  run(["report", "--data", data, "--out", join(dir, "figures"), "--bootstrap", "200"]);
}

function files(root) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  walk(root);
  return out;
}

function normaliseValue(v, key) {
  if (key !== undefined && WALL_CLOCK_KEYS.test(key) && (typeof v === "number" || typeof v === "string")) return "<wall-clock>";
  if (Array.isArray(v)) return v.map((x) => normaliseValue(x));
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normaliseValue(x, k)]));
  return v;
}

function normaliseLine(line) {
  const t = line.trim();
  if (!t.startsWith("{") && !t.startsWith("[")) return line;
  try {
    return JSON.stringify(normaliseValue(JSON.parse(t)));
  } catch {
    return line;
  }
}

/** The wall-clock keys whose values actually differed (reported, so a reader sees what was ignored). */
const differingKeys = new Set();
function noteDifferingKeys(a, b) {
  const walk = (x, y, key) => {
    if (key !== undefined && WALL_CLOCK_KEYS.test(key) && x !== y) differingKeys.add(key);
    if (x !== null && y !== null && typeof x === "object" && typeof y === "object") for (const k of Object.keys(x)) walk(x[k], y[k], Array.isArray(x) ? key : k);
  };
  try {
    return walk(JSON.parse(a), JSON.parse(b));
  } catch {
    // JSONL: one document per line
  }
  const la = a.split("\n");
  const lb = b.split("\n");
  la.forEach((line, i) => {
    try {
      walk(JSON.parse(line), JSON.parse(lb[i] ?? "null"));
    } catch {
      // not a JSON line: compared as text
    }
  });
}

function normalise(rel, text) {
  if (rel.endsWith(".jsonl")) return text.split("\n").map(normaliseLine).join("\n");
  if (rel.endsWith(".json")) {
    const n = normaliseLine(text);
    // report.json names the absolute data and output folders of the run that wrote it.
    return rel.endsWith("report.json") ? n.replace(/"\/[^"]*\/(data|figures)"/g, '"<dir>/$1"') : n;
  }
  return text;
}

function diff(a, b) {
  const fa = files(a);
  const fb = new Set(files(b));
  let bad = 0;
  let same = 0;
  for (const rel of fa) {
    if (!fb.has(rel)) {
      console.log(`only in ${a}: ${rel}`);
      bad++;
      continue;
    }
    fb.delete(rel);
    const ba = readFileSync(join(a, rel));
    const bb = readFileSync(join(b, rel));
    if (ba.equals(bb)) {
      same++;
      continue;
    }
    const binary = /\.(png|gz|bin)$/.test(rel);
    if (!binary && normalise(rel, ba.toString("utf8")) === normalise(rel, bb.toString("utf8"))) {
      noteDifferingKeys(ba.toString("utf8"), bb.toString("utf8"));
      same++;
      continue;
    }
    console.log(`differs: ${rel}`);
    bad++;
  }
  for (const rel of fb) {
    console.log(`only in ${b}: ${rel}`);
    bad++;
  }
  console.log(
    `${same} files identical${differingKeys.size ? ` (after normalising these wall-clock fields, which differed: ${[...differingKeys].sort().join(", ")})` : " byte for byte"}, ${bad} differ or are missing`,
  );
  return bad === 0;
}

const [cmd, x, y] = process.argv.slice(2);
if (cmd === "play" && x && y) {
  if (!existsSync(x)) {
    console.error(`compare-logs: ${x} does not exist (build first: npm run build)`);
    process.exit(2);
  }
  play(x, y);
} else if (cmd === "diff" && x && y) {
  process.exit(diff(x, y) ? 0 : 1);
} else {
  console.error("usage: node scripts/compare-logs.mjs play MAIN_JS DIR | diff DIR_A DIR_B");
  process.exit(2);
}
