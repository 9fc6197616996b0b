/**
 * Dollars for one call from the user's price table (dollars per million tokens). Prompt tokens the
 * provider served from its prefix cache are billed at `cached_input` when the table gives it, and at
 * the input price otherwise (the conservative choice).
 */
import type { Price } from "./modelsFile.js";
import type { Usage } from "./types.js";

export function costUsd(usage: Usage, price: Price | null | undefined): number | null {
  if (!price) return null;
  const cached = Math.min(usage.tokensCached ?? 0, usage.tokensIn);
  const cachedPrice = price.cached_input ?? price.input;
  const dollars = ((usage.tokensIn - cached) * price.input + cached * cachedPrice + usage.tokensOut * price.output) / 1_000_000;
  return dollars;
}
