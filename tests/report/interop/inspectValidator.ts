/**
 * Inspect's EvalLog schema as a standard JSON-schema validator (ajv, JSON Schema 2020-12: the
 * OpenAPI 3.1 document's dialect). The schema is tests/fixtures/inspect/inspect-openapi.json
 * (Inspect's own document, copied unchanged: see that folder's README); its `$ref`s point at
 * `#/components/schemas/...`, so the validator's root is a schema that refers to EvalLog and
 * carries the document's components beside it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv/dist/2020.js";

export const OPENAPI_PATH = fileURLToPath(new URL("../../fixtures/inspect/inspect-openapi.json", import.meta.url));

export function evalLogValidator(): ValidateFunction {
  const doc = JSON.parse(readFileSync(OPENAPI_PATH, "utf8")) as { openapi: string; components: { schemas: Record<string, unknown> } };
  const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", $ref: "#/components/schemas/EvalLog", components: doc.components };
  // strict: false lets the OpenAPI-only keywords (`discriminator`) pass as annotations; every event
  // is still checked against its `oneOf` (each event type has its own `event` constant).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  return ajv.compile(schema);
}

/** The validator's errors as short lines (path and message). */
export function errorLines(v: ValidateFunction): string[] {
  return (v.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`);
}
