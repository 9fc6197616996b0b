/**
 * One protocol per data directory (README: "a data directory never mixes two protocols"), checked
 * when a run is planned. The per-run check (manifest.ts checkResumable) only compares a run with its
 * own earlier invocations; this one compares the planned protocol with every other run already in
 * the directory, so `report` never puts runs of two schedules side by side.
 *
 * Compared: the numbers that make curves comparable, the `compared` rows of PROTOCOL_SETTINGS
 * (protocolSettings.ts: exploration episodes, checkpoint spacing, evaluation episodes, step cap,
 * context budget, tokenizer, reward visibility, parse rule, answer source, history cut, think replay). Not compared: the run seed (replicates share a directory), max_new_tokens (a models-file
 * entry may set its own), the game configs (each game has its own), and training or exploration-only
 * runs, whose schedule is their checkpoint list.
 *
 * Older data: a run directory without a readable manifest, or a manifest without `config.protocol`
 * (written before the protocol was recorded), cannot say its protocol and is left out of the check
 * (docs/endpoints.md); a manifest without a compared key compares as its row's `absent` value (the
 * default of that time: `parse_rule` `strict-contract`, `answer_from` `content`, ...).
 *
 * Manifests alone cannot hold the promise: a deleted manifest hides its run from the check, and two
 * runs started at once each find the other's manifest not yet written. So the directory also has its
 * own record, `<data>/protocol.json` (PROTOCOL_FILE), claimed by the first run planned in it with an
 * exclusive create (`claimDataDirProtocol`): of two racing starts with different protocols, one
 * creates it and the other reads it and is refused.
 */
import { playsProtocolLoop } from "../pathways/registry.js";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readRegularText } from "../util/regularFile.js";
import { z } from "zod";
import { manifestPath, runsDir } from "../logs/runDir.js";
import { createFileExclusive } from "../util/atomicWrite.js";
import { canonicalJson } from "../util/canonicalJson.js";
import { ConfigError } from "../util/errors.js";
import type { ProtocolSettings } from "./context.js";
import { PROTOCOL_SETTINGS } from "./protocolSettings.js";
import { settingsRecord } from "./protocolRecord.js";

/** The recorded keys a data directory holds to one value: the `compared` rows of PROTOCOL_SETTINGS, in their order. */
const COMPARED: readonly string[] = PROTOCOL_SETTINGS.flatMap((r) => (r.record?.compared ? [r.record.key] : []));

/** What an absent field meant when the manifest was written (the defaults of that time): each compared row's `absent`. */
const ABSENT: Readonly<Record<string, unknown>> = Object.fromEntries(PROTOCOL_SETTINGS.flatMap((r) => (r.record?.compared && r.record.absent !== undefined ? [[r.record.key, r.record.absent]] : [])));

/** The part of a manifest this check reads; anything else in it is not looked at here. */
const ManifestHead = z.object({
  pathway: z.string(),
  config: z.object({
    protocol: z.record(z.string(), z.unknown()).optional(),
    invocation: z.object({ exploration_only: z.boolean().optional() }).passthrough().optional(),
  }).passthrough(),
}).passthrough();

/** A protocol's compared fields (COMPARED), absent ones filled from ABSENT. */
export type Compared = Partial<Record<string, unknown>>;

function comparedOf(record: Record<string, unknown>): Compared {
  const out: Compared = {};
  for (const k of COMPARED) out[k] = record[k] ?? ABSENT[k];
  return out;
}

/**
 * Throws when runs already in `dataDir` were written under another protocol than `settings`, naming
 * an example run and each differing number (`field: theirs -> planned`). Runs in `skip` (those being
 * resumed, checked field by field elsewhere) and unreadable manifests are left out.
 */
export function checkDataDirProtocol(dataDir: string, settings: ProtocolSettings, skip: ReadonlySet<string> = new Set()): void {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return;
  const planned = comparedOf(settingsRecord(settings) as Record<string, unknown>);
  const clashes = new Map<string, { example: string; runs: number }>();
  for (const id of readdirSync(root).sort()) {
    if (skip.has(id)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(readRegularText(manifestPath(join(root, id))));
    } catch {
      continue;
    }
    const parsed = ManifestHead.safeParse(raw);
    if (!parsed.success) continue;
    const manifest = parsed.data;
    const protocol = manifest.config.protocol;
    if (!protocol || !playsProtocolLoop(manifest.pathway) || manifest.config.invocation?.exploration_only === true) continue;
    const diff = protocolDiff(comparedOf(protocol), planned);
    if (diff === "") continue;
    const seen = clashes.get(diff);
    if (seen) seen.runs++;
    else clashes.set(diff, { example: id, runs: 1 });
  }
  if (clashes.size === 0) return;
  const lines = [...clashes].map(([diff, c]) => `${c.runs} run${c.runs > 1 ? "s" : ""} (e.g. ${c.example}) differ: ${diff}`);
  throw clashError(dataDir, lines.join("; "));
}

function clashError(dataDir: string, what: string): ConfigError {
  return new ConfigError(`--data ${dataDir} already holds runs of another protocol: ${what}; a data directory holds one protocol (report would put both side by side): use another --data directory, or rerun with the original flags`);
}

/** The data directory's own protocol record: the compared numbers of the first run planned in it. */
export const PROTOCOL_FILE = "protocol.json";

const ProtocolFile = z.object({ protocol: z.record(z.string(), z.unknown()) });

/**
 * Claims the data directory for `settings`' protocol, or throws when it is already another's. The
 * first caller creates `<data>/protocol.json` exclusively (createFileExclusive); every later one
 * (including a racing one that lost the create) compares with it. A protocol.json that cannot be
 * read is refused with the file and the fix, never overwritten: it is the directory's only record
 * once manifests are gone.
 */
export function claimDataDirProtocol(dataDir: string, settings: ProtocolSettings): void {
  const planned = comparedOf(settingsRecord(settings) as Record<string, unknown>);
  const file = join(dataDir, PROTOCOL_FILE);
  mkdirSync(dataDir, { recursive: true });
  const content = `${JSON.stringify({ protocol: planned, note: "the protocol of every run in this data directory (s3gym: one protocol per directory)" }, null, 2)}\n`;
  if (createFileExclusive(file, content)) return;
  const theirs = readDataDirProtocol(dataDir);
  // Gone since the create failed (removed by hand): nothing recorded to clash with.
  const diff = theirs === null ? "" : protocolDiff(theirs, planned);
  if (diff !== "") throw clashError(dataDir, `${PROTOCOL_FILE} differs: ${diff}`);
}

/** The compared numbers two protocols differ in, as `field: a -> b, ...`; "" when they agree. */
export function protocolDiff(a: Compared, b: Compared): string {
  return COMPARED.filter((k) => canonicalJson(a[k] ?? null) !== canonicalJson(b[k] ?? null))
    .map((k) => `${k}: ${canonicalJson(a[k] ?? null)} -> ${canonicalJson(b[k] ?? null)}`)
    .join(", ");
}

/**
 * A data directory's recorded protocol (`<data>/protocol.json`); null when it has none. One that
 * cannot be read is refused with the file and the fix, never taken as absent: it is the directory's
 * only record once manifests are gone.
 */
export function readDataDirProtocol(dataDir: string): Compared | null {
  const file = join(dataDir, PROTOCOL_FILE);
  if (!existsSync(file)) return null;
  try {
    return comparedOf(ProtocolFile.parse(JSON.parse(readRegularText(file))).protocol);
  } catch (e) {
    const why = e instanceof z.ZodError ? "no 'protocol' object" : (e as Error).message;
    throw new ConfigError(`${file}: cannot be read (${why}); it records the protocol of this data directory's runs: restore it, or delete it to let the next run record its own flags`);
  }
}
