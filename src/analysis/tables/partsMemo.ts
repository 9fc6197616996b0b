/**
 * The parts a report already computed (reportParts.ts), kept beside the data set they were computed
 * from, so that another `buildReport` of the same data set and options takes them instead of
 * computing them again. `s3gym reproduce` builds every table in its report, then hands the data set
 * and these parts to the notebooks in their snapshot (src/report/notebooks/datasetSnapshot.ts): a
 * notebook's builders then answer from the report's own results instead of redoing its bootstraps.
 *
 * A memo answers only for the very Dataset object it was attached to (the snapshot's), with the same
 * bootstrap settings, completeness rule and flagged-runs rule, and with the data set as its own
 * reference. A part that also reads the judge dial's runs or the verified pathway's inputs is keyed by
 * those inputs' content too (the SHA-256 of their v8 serialisation): a notebook that passes other
 * inputs, or none, computes it. Anything else a notebook computes (its own builder, other options)
 * never meets the memo, and what it writes is still compared byte for byte with the report's files.
 */
import { createHash } from "node:crypto";
import { serialize } from "node:v8";
import type { BootstrapConfig } from "../stats/bootstrap.js";
import type { Dataset } from "../load/dataset.js";

/** The inputs beyond the data set that some parts read (null: not passed). */
export type PartInput = "dial" | "verified";

/** The options and extra inputs a memo's parts were computed with. */
export interface PartsKey {
  cfg: BootstrapConfig;
  requireComplete: boolean;
  includeFlagged: boolean;
  /** Content hash of each extra input the report was given, null where it had none. */
  inputs: Record<PartInput, string | null>;
}

/** What a report computed, as written into a snapshot: each part by name, with the inputs it read. */
export interface PartsMemo {
  key: PartsKey;
  parts: Record<string, { reads: PartInput[]; value: unknown }>;
}

const attached = new WeakMap<Dataset, PartsMemo>();

const known = new WeakMap<object, string>();

/**
 * The SHA-256 of `value`'s v8 serialisation (null for undefined): what keys an extra input. An object
 * read back from a snapshot carries the hash its writer computed (`tagContent`): v8 may serialise a
 * copy with other bytes (another array layout), which would only cost a miss, never a wrong hit.
 */
export function contentHash(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === "object" && value !== null && known.has(value)) return known.get(value)!;
  return createHash("sha256").update(serialize(value)).digest("hex");
}

/** Records that `value` (read back from a snapshot) is the input whose content hash was `hash` when written. */
export function tagContent(value: object, hash: string): void {
  known.set(value, hash);
}

/** Attaches `memo` to `ds` (a data set read back from a snapshot). */
export function attachParts(ds: Dataset, memo: PartsMemo): void {
  attached.set(ds, memo);
}

/**
 * A lookup of the parts attached to `ds` for a report with `key`'s settings, or null when none
 * apply. The extra inputs are hashed lazily, once, only when a part that reads them is asked for.
 */
export function partsFor(ds: Dataset, settings: Omit<PartsKey, "inputs">, inputs: Record<PartInput, unknown>): ((name: string) => { hit: true; value: unknown } | { hit: false }) | null {
  const memo = attached.get(ds);
  if (!memo) return null;
  const k = memo.key;
  const cfgKeys = new Set([...Object.keys(k.cfg), ...Object.keys(settings.cfg)]) as Set<keyof BootstrapConfig>;
  const same = [...cfgKeys].every((c) => k.cfg[c] === settings.cfg[c]) && k.requireComplete === settings.requireComplete && k.includeFlagged === settings.includeFlagged;
  if (!same) return null;
  const hashes = new Map<PartInput, string | null>();
  const hashOf = (i: PartInput): string | null => {
    if (!hashes.has(i)) hashes.set(i, contentHash(inputs[i]));
    return hashes.get(i)!;
  };
  return (name) => {
    const entry = Object.hasOwn(memo.parts, name) ? memo.parts[name]! : null;
    if (entry === null || entry.reads.some((i) => hashOf(i) !== k.inputs[i])) return { hit: false };
    return { hit: true, value: entry.value };
  };
}
