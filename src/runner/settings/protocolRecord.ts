/**
 * The one mapping between the runner's protocol settings (ProtocolSettings, camelCase) and their
 * recorded form (`config.protocol` of a manifest, the train-loop state: ProtocolRecord of
 * src/logs/schema.ts, snake_case), in both directions. Everything that writes the numbers or reads
 * them back (manifest, resume check, replay, BuildSFT, train loop) goes through here.
 */
import type { ProtocolRecord, RunManifest, SettingsRecord } from "../../logs/schema.js";
import type { RunContext } from "../loop/context.js";
import { PROTOCOL_SETTINGS, type ProtocolSettings, type SettingRecordSpec } from "./protocolSettings.js";

/** The recorded rows of PROTOCOL_SETTINGS, in the recorded key order. */
function recordedRows(): { key: keyof ProtocolSettings; record: SettingRecordSpec<unknown>; default: unknown }[] {
  return PROTOCOL_SETTINGS.flatMap((r) => (r.record ? [{ key: r.key, record: r.record as SettingRecordSpec<unknown>, default: r.default }] : []));
}

/** ProtocolSettings -> their recorded form (each row's `write`; a row whose value records nothing is left out). */
export function settingsRecord(s: ProtocolSettings): SettingsRecord {
  const out: Record<string, unknown> = {};
  for (const { key, record } of recordedRows()) {
    const value = s[key];
    const recorded = record.write ? record.write(value) : (value ?? record.absent);
    if (recorded !== undefined) out[record.key] = recorded;
  }
  return out as SettingsRecord;
}

/** The recorded form -> ProtocolSettings. Throws naming the field when a value is not one the kit has (the tokenizer). */
export function settingsFromRecord(r: SettingsRecord, where = "config.protocol"): ProtocolSettings {
  const out: Record<string, unknown> = {};
  for (const { key, record } of recordedRows()) {
    const recorded = (r as Record<string, unknown>)[record.key];
    const value = record.read ? record.read(recorded, where) : (recorded ?? record.absent);
    if (value !== undefined) out[key] = value;
  }
  return out as unknown as ProtocolSettings;
}

/**
 * The keys every new run records (its default writes a value) with what each meant when an older
 * manifest lacks it: a resume reads a missing one as that (`parse_rule`: runs from before it was
 * recorded were read by the literal contract, resumable with --strict-contract). Keys left out at
 * their default (`answer_from`, `think_replay`) need nothing: absent on both sides already agrees.
 */
export function absentRecordDefaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { record, default: d } of recordedRows()) {
    if (record.absent !== undefined && (record.write ? record.write(d) : (d ?? record.absent)) !== undefined) out[record.key] = record.absent;
  }
  return out;
}

/** The part of the config that decides what the episodes are: it must not change on resume. */
export function protocolRecord(run: Pick<RunContext, "settings" | "configs">): ProtocolRecord {
  return { ...settingsRecord(run.settings), game_configs: { explore: run.configs.explore.config, eval: run.configs.eval.config } };
}

/** A manifest's protocol block; throws naming the file's field when the manifest has none (hand-written logs). */
export function manifestProtocol(manifest: RunManifest): ProtocolRecord {
  const p = manifest.config.protocol;
  if (!p) throw new Error(`run ${manifest.run_id}: manifest.json has no config.protocol (the protocol numbers and game configs), so its prompts cannot be rebuilt`);
  return p;
}
