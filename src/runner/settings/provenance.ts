/**
 * The provenance a manifest and report.json record (ProvenanceRecord, src/logs/schema.ts): the kit's
 * version, commit and dirty flag, the Node version, and for a run the key variable's NAME, the
 * endpoint and the concurrency its model actually used, and the fingerprints its replies carried.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ProvenanceRecord } from "../../logs/schema.js";
import type { Model } from "../../models/types.js";
import { kitSource } from "../../util/kitSource.js";

let kitVersion: string | null = null;
/** The kit's package.json version (two levels up from src/runner or dist/runner). */
export function getKitVersion(): string {
  if (kitVersion === null) {
    try {
      kitVersion = (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version?: string }).version ?? "unknown";
    } catch {
      kitVersion = "unknown";
    }
  }
  return kitVersion;
}

/** The kit's root: two levels up from src/runner or dist/runner (where its package.json is). */
function kitRoot(): string {
  return fileURLToPath(new URL("../../../", import.meta.url));
}

/** The kit and Node part, the same for every run of a process (the git checkout is read once). */
export function kitProvenance(): ProvenanceRecord {
  const source = kitSource(kitRoot());
  return { kit_version: getKitVersion(), kit_commit: source.commit, kit_dirty: source.dirty, node_version: process.version };
}

/**
 * A run's provenance: the kit's, plus what its model used. A model built by hand (tests) has no
 * resolved settings: its key variable and concurrency are null.
 */
export function runProvenance(model: Pick<Model, "endpointHost" | "resolved">, servedFingerprints: readonly string[], servedModels: readonly string[] = []): ProvenanceRecord {
  const r = model.resolved;
  return {
    ...kitProvenance(),
    api_key_env: r?.apiKeyEnv ?? null,
    endpoint: model.endpointHost,
    concurrency: r?.concurrency ?? null,
    served_fingerprints: [...servedFingerprints],
    served_models: [...servedModels],
  };
}
