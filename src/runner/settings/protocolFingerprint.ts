/**
 * The protocol a run's logs were played under, carried by the logs themselves: every episode line
 * holds `protocol_fingerprint`, a hash of the compared protocol settings (the `compared` rows of
 * PROTOCOL_SETTINGS, protocolSettings.ts). With every manifest.json and the data directory's
 * protocol.json gone, a rerun under other flags still finds its logs' fingerprint differ and is
 * refused (logProtocol.ts for a resumed run, dataDirProtocol.ts for the other runs of the directory).
 *
 * The compared fields come from the table, never from a list here: a new compared row joins the
 * fingerprint by being added. So that logs written before a row existed keep their fingerprint, a
 * field whose value is its row's `absent` (what runs did before the setting was recorded) is left
 * out of the hash: the fingerprint of such a run is the one the kit of that time wrote.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../util/canonicalJson.js";
import type { ProtocolSettings } from "./protocolSettings.js";
import { PROTOCOL_SETTINGS } from "./protocolSettings.js";
import { settingsRecord } from "./protocolRecord.js";

/** The recorded keys a data directory holds to one value: the `compared` rows of PROTOCOL_SETTINGS, in their order. */
export const COMPARED: readonly string[] = PROTOCOL_SETTINGS.flatMap((r) => (r.record?.compared ? [r.record.key] : []));

/** What an absent field meant when the manifest was written (the defaults of that time): each compared row's `absent`. */
export const ABSENT: Readonly<Record<string, unknown>> = Object.fromEntries(
  PROTOCOL_SETTINGS.flatMap((r) => (r.record?.compared && r.record.absent !== undefined ? [[r.record.key, r.record.absent]] : [])),
);

/** A protocol's compared fields (COMPARED), absent ones filled from ABSENT. */
export type Compared = Partial<Record<string, unknown>>;

export function comparedOf(record: Record<string, unknown>): Compared {
  const out: Compared = {};
  for (const k of COMPARED) out[k] = record[k] ?? ABSENT[k];
  return out;
}

/** The fingerprint of compared fields: 16 hex digits of SHA-256 over their canonical JSON, `absent`-valued fields left out. */
export function fingerprintOfCompared(c: Compared): string {
  const kept: Record<string, unknown> = {};
  for (const k of COMPARED) {
    // A field with no value and no `absent` (a setting recorded only away from its default, as the
    // hybrid pathway's) is left out, so adding such a row keeps every other run's fingerprint.
    if (c[k] === undefined && !(k in ABSENT)) continue;
    const v = c[k] ?? null;
    if (k in ABSENT && canonicalJson(v) === canonicalJson(ABSENT[k])) continue;
    kept[k] = v;
  }
  return createHash("sha256").update(canonicalJson(kept)).digest("hex").slice(0, 16);
}

const memo = new WeakMap<ProtocolSettings, string>();

/** The fingerprint every episode line of a run played under `settings` carries (`protocol_fingerprint`). */
export function protocolFingerprint(settings: ProtocolSettings): string {
  let fp = memo.get(settings);
  if (fp === undefined) {
    fp = fingerprintOfCompared(comparedOf(settingsRecord(settings) as Record<string, unknown>));
    memo.set(settings, fp);
  }
  return fp;
}
