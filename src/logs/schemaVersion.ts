/**
 * Data written by a newer kit (a manifest whose `schema_version` is above SCHEMA_VERSION) may hold
 * fields whose meaning or type this kit does not know. It is never rewritten down: a run refuses to
 * resume it (the manifest would be rewritten as this version, its unknown fields dropped, and step
 * lines of a changed type moved to `.damaged` and played again), and the analysis leaves the run out,
 * named. The fix is to upgrade the kit.
 */
import { readFileSync } from "node:fs";
import { ConfigError } from "../util/errors.js";
import { SCHEMA_VERSION } from "./schema.js";

/** A manifest whose data contract is newer than this kit's. */
export class NewerSchemaError extends ConfigError {
  override name = "NewerSchemaError";
  constructor(
    readonly file: string,
    readonly version: number,
  ) {
    super(
      `${file}: written by a newer s3gym (data schema version ${version}; this kit reads up to ${SCHEMA_VERSION}), so this kit cannot read or rewrite it without losing what it does not know: upgrade s3gym (npm install s3gym@latest, or pull the repository) to use this run`,
    );
  }
}

/** Throws NewerSchemaError when `manifest` (parsed JSON, any shape) declares a schema version above this kit's. */
export function refuseNewerSchema(manifest: unknown, file: string): void {
  if (typeof manifest !== "object" || manifest === null) return;
  const v = (manifest as { schema_version?: unknown }).schema_version;
  if (typeof v === "number" && Number.isFinite(v) && v > SCHEMA_VERSION) throw new NewerSchemaError(file, v);
}

/** refuseNewerSchema on a manifest file; a file that is not JSON is left to the caller's own reading. */
export function refuseNewerSchemaFile(file: string): void {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return;
  }
  refuseNewerSchema(raw, file);
}
