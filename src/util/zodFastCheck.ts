/**
 * A cheap yes/maybe check compiled from a zod schema, for the log writers: every line is validated
 * before it is written, and zod's own parse (which builds a copy of the record and a result object per
 * field) was ~8% of a run's CPU. The compiled check reads the schema's definition once and then only
 * looks at the values, allocating nothing.
 *
 * Contract: `check(v) === true` only when `schema.safeParse(v)` would succeed. `false` means "not
 * sure": the caller then asks zod, which gives the verdict and the message. So the check may be
 * stricter than zod (a short string under a length floor, which zod measures in code points, says
 * false) but never looser. A schema with anything it does not know (refinements, transforms,
 * formats, strict objects, unions ...) compiles to null: the caller uses zod for every value.
 */
import type { z } from "zod";

type Check = (v: unknown) => boolean;

/** The parts of zod 4's internal definition the compiler reads (`schema._zod.def`). */
interface Def {
  type: string;
  checks?: { _zod: { def: { check: string; minimum?: number; value?: unknown; inclusive?: boolean; format?: string; when?: unknown } } }[];
  coerce?: boolean;
  innerType?: z.ZodTypeAny;
  element?: z.ZodTypeAny;
  entries?: Record<string, unknown>;
  shape?: Record<string, z.ZodTypeAny>;
  catchall?: z.ZodTypeAny;
}

const defOf = (s: z.ZodTypeAny): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Unknown construct: the whole schema falls back to zod. */
class Unsupported extends Error {}

/** The numeric checks zod 4 puts on z.number(): int (safeint), nonnegative, positive, min, gt. */
function numberChecks(def: Def): Check[] {
  return (def.checks ?? []).map((c): Check => {
    const d = c._zod.def;
    if (d.when !== undefined) throw new Unsupported();
    if (d.check === "number_format" && d.format === "safeint") return (v) => Number.isSafeInteger(v);
    if (d.check === "greater_than" && typeof d.value === "number") {
      const min = d.value;
      return d.inclusive ? (v) => (v as number) >= min : (v) => (v as number) > min;
    }
    if (d.check === "less_than" && typeof d.value === "number") {
      const max = d.value;
      return d.inclusive ? (v) => (v as number) <= max : (v) => (v as number) < max;
    }
    throw new Unsupported();
  });
}

/** The string checks: a length floor only (zod counts code points; twice the floor in UTF-16 units always clears it). */
function stringChecks(def: Def): Check[] {
  return (def.checks ?? []).map((c): Check => {
    const d = c._zod.def;
    // zod sets `when` to its "has a length" guard: always true for a string, which the base check requires.
    if (d.check === "min_length" && typeof d.minimum === "number" && (d.when === undefined || (d.when as { name?: string }).name === "_whenHasLength")) {
      const twice = 2 * d.minimum;
      return (v) => (v as string).length >= twice;
    }
    throw new Unsupported();
  });
}

function all(base: Check, checks: Check[]): Check {
  if (checks.length === 0) return base;
  return (v) => {
    if (!base(v)) return false;
    for (const c of checks) if (!c(v)) return false;
    return true;
  };
}

function compile(schema: z.ZodTypeAny): Check {
  const def = defOf(schema);
  if (def.coerce) throw new Unsupported();
  switch (def.type) {
    case "string":
      return all((v) => typeof v === "string", stringChecks(def));
    case "number":
      return all((v) => typeof v === "number" && Number.isFinite(v), numberChecks(def));
    case "boolean":
      if ((def.checks ?? []).length > 0) throw new Unsupported();
      return (v) => typeof v === "boolean";
    case "enum": {
      // String enums only (each entry its own key): a TypeScript numeric enum's reverse keys are not values.
      if ((def.checks ?? []).length > 0 || !def.entries || Object.entries(def.entries).some(([k, v]) => k !== v)) throw new Unsupported();
      const values = new Set(Object.values(def.entries));
      return (v) => values.has(v);
    }
    case "nullable": {
      if ((def.checks ?? []).length > 0) throw new Unsupported();
      const inner = compile(def.innerType!);
      return (v) => v === null || inner(v);
    }
    case "optional": {
      if ((def.checks ?? []).length > 0) throw new Unsupported();
      const inner = compile(def.innerType!);
      return (v) => v === undefined || inner(v);
    }
    case "array": {
      if ((def.checks ?? []).length > 0) throw new Unsupported();
      const el = compile(def.element!);
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!el(v[i])) return false;
        return true;
      };
    }
    case "object": {
      if ((def.checks ?? []).length > 0) throw new Unsupported();
      // No catchall (extra keys stripped) or passthrough (z.unknown()): extra keys never fail; strict does.
      if (def.catchall !== undefined && !["unknown", "any"].includes(defOf(def.catchall).type)) throw new Unsupported();
      // The object's keys are walked (for-in reads each value through the key cache of the object's
      // shape) and each field's check found by its key: a lookup per schema field is megamorphic (a
      // different key at one site) and was most of a log line's validation. A field whose check
      // refuses undefined must be there: when fewer of them were seen, the answer is "not sure".
      // Only plain objects, and no field named like a property of Object.prototype, so a field the
      // walk does not see is undefined for zod too.
      const required = new Map<string, Check>();
      const optional = new Map<string, Check>();
      for (const [k, s] of Object.entries(def.shape ?? {})) {
        if (k in Object.prototype) throw new Unsupported();
        const c = compile(s);
        (c(undefined) ? optional : required).set(k, c);
      }
      const nRequired = required.size;
      return (v) => {
        if (typeof v !== "object" || v === null) return false;
        const proto = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) return false;
        const o = v as Record<string, unknown>;
        let seen = 0;
        for (const k in o) {
          let c = required.get(k);
          if (c !== undefined) seen++;
          else if ((c = optional.get(k)) === undefined) continue;
          if (!c(o[k])) return false;
        }
        return seen === nRequired;
      };
    }
    default:
      throw new Unsupported();
  }
}

const compiled = new WeakMap<z.ZodTypeAny, Check | null>();

/** The compiled check of `schema` (kept per schema), or null when it uses anything the compiler does not know. */
export function fastCheckOf(schema: z.ZodTypeAny): Check | null {
  if (compiled.has(schema)) return compiled.get(schema)!;
  let check: Check | null;
  try {
    check = compile(schema);
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    check = null;
  }
  compiled.set(schema, check);
  return check;
}
