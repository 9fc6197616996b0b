/**
 * Compile-time checks of the option tables, run by `npm run typecheck` (not by vitest): each
 * `@ts-expect-error` line must fail to compile, so a settings field without an option row, or a row of
 * the wrong value type, is caught before any test runs. If a line stops failing, typecheck reports the
 * unused directive.
 */
import type { ProtocolSettings } from "../../src/runner/settings/protocolSettings.js";
import { PROTOCOL_ROWS } from "../../src/runner/settings/protocolSettings.js";
import { rowsCovering, type OptionTable } from "../../src/util/options.js";

interface Toy {
  level: number;
  mode: "a" | "b";
}

// Every field with its row: compiles.
export const complete: OptionTable<Toy> = {
  level: { name: "toy-level", kind: { type: "int", range: { min: 0, max: 9 } }, default: 1 },
  mode: { name: "toy-mode", kind: { type: "choice", choices: ["a", "b"] }, default: "a" },
};

// @ts-expect-error a settings field (`mode`) without an option row does not compile
export const missing: OptionTable<Toy> = {
  level: { name: "toy-level", kind: { type: "int", range: { min: 0, max: 9 } }, default: 1 },
};

export const wrongType: OptionTable<Toy> = {
  // @ts-expect-error a row whose default is not the field's type does not compile
  level: { name: "toy-level", kind: { type: "int", range: { min: 0, max: 9 } }, default: "1" },
  mode: { name: "toy-mode", kind: { type: "choice", choices: ["a", "b"] }, default: "a" },
};

// The protocol's table covers ProtocolSettings today...
export const protocolCovered = rowsCovering<ProtocolSettings>()(PROTOCOL_ROWS);
// @ts-expect-error ...and a new ProtocolSettings field (here `toyKnob`) without its row does not compile
export const protocolMissing = rowsCovering<ProtocolSettings & { toyKnob: number }>()(PROTOCOL_ROWS);
