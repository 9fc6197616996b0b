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
 * Older data: a run directory without a readable manifest whose episode lines carry no
 * `protocol_fingerprint` (written before it was), or a manifest without `config.protocol`
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
import { playsProtocolLoop } from "../../pathways/registry.js";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { readRegularText } from "../../util/regularFile.js";
import { z } from "zod";
import { manifestPath, runsDir } from "../../logs/runDir.js";
import { atomicTempPath, createFileExclusive } from "../../util/atomicWrite.js";
import { pidIsAlive } from "../../util/pid.js";
import { canonicalJson } from "../../util/canonicalJson.js";
import { ConfigError } from "../../util/errors.js";
import type { ProtocolSettings } from "../loop/context.js";
import { settingsRecord } from "../settings/protocolRecord.js";
import { COMPARED, comparedOf, protocolFingerprint, type Compared } from "../settings/protocolFingerprint.js";
import { loggedFingerprint } from "../resume/logProtocol.js";

export type { Compared };

/** The part of a manifest this check reads; anything else in it is not looked at here. */
const ManifestHead = z
  .object({
    pathway: z.string(),
    config: z
      .object({
        protocol: z.record(z.string(), z.unknown()).optional(),
        invocation: z.object({ exploration_only: z.boolean().optional() }).passthrough().optional(),
      })
      .passthrough(),
  })
  .passthrough();

/**
 * Throws when runs already in `dataDir` were written under another protocol than `settings`, naming
 * an example run and each differing number (`field: theirs -> planned`). Runs in `skip` (those being
 * resumed, checked field by field elsewhere) are left out. A run without a readable manifest is
 * compared by its episode lines' `protocol_fingerprint` (protocolFingerprint.ts), when it is a
 * protocol-loop run with evaluation episodes (logProtocol.ts loggedFingerprint); logs of older kits
 * carry none and are left out as before.
 */
export function checkDataDirProtocol(dataDir: string, settings: ProtocolSettings, skip: ReadonlySet<string> = new Set()): void {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return;
  const planned = comparedOf(settingsRecord(settings) as Record<string, unknown>);
  const plannedFingerprint = protocolFingerprint(settings);
  const clashes = new Map<string, { example: string; runs: number }>();
  const byLogs = new Map<string, { example: string; runs: number }>();
  for (const id of readdirSync(root).sort()) {
    if (skip.has(id)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(readRegularText(manifestPath(join(root, id))));
    } catch {
      // No readable manifest: the episode lines still carry the protocol's fingerprint.
      const logged = loggedFingerprint(join(root, id));
      if (logged !== null && logged.fingerprint !== plannedFingerprint) {
        const diff = `protocol_fingerprint of its logs (episodes.jsonl:${logged.line}, no manifest.json): ${logged.fingerprint} -> ${plannedFingerprint} (one of ${COMPARED.join(", ")} differs)`;
        const seen = byLogs.get(diff);
        if (seen) seen.runs++;
        else byLogs.set(diff, { example: id, runs: 1 });
      }
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
  // A fingerprint says only THAT the protocol differs: when the directory's protocol.json differs from
  // the plan too, its claim (claimDataDirProtocol, next) names the fields, so it speaks instead.
  if (byLogs.size > 0) {
    const recorded = readDataDirProtocol(dataDir);
    if (recorded === null || protocolDiff(recorded, planned) === "") for (const [k, v] of byLogs) clashes.set(k, v);
  }
  if (clashes.size === 0) return;
  const lines = [...clashes].map(([diff, c]) => `${c.runs} run${c.runs > 1 ? "s" : ""} (e.g. ${c.example}) differ: ${diff}`);
  throw clashError(dataDir, lines.join("; "));
}

function clashError(dataDir: string, what: string): ConfigError {
  return new ConfigError(
    `--data ${dataDir} already holds runs of another protocol: ${what}; a data directory holds one protocol (report would put both side by side): use another --data directory, or rerun with the original flags`,
  );
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
 *
 * A claim with no run beside it binds nothing: when `runs/` holds no run directory and the claimer
 * is gone (an older kit recorded no claimer; one on this host whose process has ended), the claim is
 * replaced by this one. Such a file is what a run refused before its first episode left behind in
 * older versions; the claimer named in it keeps a racing start with another protocol refused while
 * the first is still creating its runs.
 */
export function claimDataDirProtocol(dataDir: string, settings: ProtocolSettings): void {
  const planned = comparedOf(settingsRecord(settings) as Record<string, unknown>);
  const file = join(dataDir, PROTOCOL_FILE);
  mkdirSync(dataDir, { recursive: true });
  const content = `${JSON.stringify({ protocol: planned, claimed_by: { host: hostname(), pid: process.pid }, note: "the protocol of every run in this data directory (s3gym: one protocol per directory)" }, null, 2)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createFileExclusive(file, content)) return;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue; // removed since the create failed: try the create again
    }
    const theirs = readDataDirProtocol(dataDir);
    // Gone since the create failed (removed by hand): nothing recorded to clash with.
    const diff = theirs === null ? "" : protocolDiff(theirs, planned);
    if (diff === "") return;
    if (!claimIsStale(dataDir, text)) throw clashError(dataDir, `${PROTOCOL_FILE} differs: ${diff}`);
    setAsideStale(file, text);
  }
  throw clashError(dataDir, `${PROTOCOL_FILE} changed while this run was claiming the directory`);
}

/**
 * What `claimDataDirProtocol` would refuse, checked without writing: throws when `<data>/protocol.json`
 * records another protocol and still binds (a run beside it, or a living claimer).
 */
export function checkDataDirClaim(dataDir: string, settings: ProtocolSettings): void {
  const theirs = readDataDirProtocol(dataDir);
  if (theirs === null) return;
  const diff = protocolDiff(theirs, comparedOf(settingsRecord(settings) as Record<string, unknown>));
  if (diff === "") return;
  let text = "";
  try {
    text = readFileSync(join(dataDir, PROTOCOL_FILE), "utf8");
  } catch {
    return;
  }
  if (!claimIsStale(dataDir, text)) throw clashError(dataDir, `${PROTOCOL_FILE} differs: ${diff}`);
}

const Claimer = z.object({ claimed_by: z.object({ host: z.string(), pid: z.number().int().positive() }).optional() }).passthrough();

/** Whether a protocol.json (its text) binds nothing: no run directory beside it and no living claimer. */
function claimIsStale(dataDir: string, text: string): boolean {
  const root = runsDir(dataDir);
  if (existsSync(root) && readdirSync(root).length > 0) return false;
  let by: { host: string; pid: number } | undefined;
  try {
    by = Claimer.parse(JSON.parse(text)).claimed_by;
  } catch {
    return false;
  }
  if (by === undefined) return true;
  // Another host's process cannot be probed from here: its claim stands.
  return by.host === hostname() && !pidIsAlive(by.pid);
}

/**
 * Moves a stale protocol.json out of the way, only if it is still the file judged stale (`text`): of
 * racing replacers one moves it; a fresh claim moved by mistake is put back (the caller's next
 * attempt then compares with it).
 */
function setAsideStale(file: string, text: string): void {
  const aside = atomicTempPath(`${file}.stale`);
  try {
    renameSync(file, aside);
  } catch {
    return; // already moved by a racing replacer: the create decides
  }
  const moved = readFileSync(aside, "utf8");
  if (moved !== text) {
    // Someone's fresh claim: restore it (unless yet another claim took the name meanwhile).
    createFileExclusive(file, moved);
  }
  unlinkSync(aside);
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
