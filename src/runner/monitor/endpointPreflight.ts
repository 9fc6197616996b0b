/**
 * The preflight of a whole invocation (endpoints.md, "Known before the first token"): one check per
 * distinct endpoint x model x parameters among the run's models, before any step call
 * (src/models/preflight/preflight.ts does the checking). The probe is the run's real first step prompt, so the
 * chat template and the parameters are exercised as the run will exercise them.
 *
 * A probe that passed is remembered in the data directory's cache (`cache/preflight/<key>.json`,
 * keyed like the response cache by endpoint, model, parameters and prompt), so a resumed run does not
 * pay for it again, and so is the largest window probe the server counted whole (a later run with
 * a context no larger pays nothing for it); the model list and the context are checked every time
 * (they cost nothing).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildStepMessages } from "../../agent/stepPrompt.js";
import type { Game } from "../../games/types.js";
import { canonicalJson } from "../../util/canonicalJson.js";
import { sentSampling, type ModelContext, type ResolvedModel } from "../../models/assembleModel.js";
import { endpointIdOf } from "../../models/openaiModel.js";
import { preflightEndpoint, type PreflightReport, type PreflightTarget } from "../../models/preflight/preflight.js";
import { resolveConfig, type ProtocolSettings } from "../loop/context.js";
import { exploreSeeds } from "../loop/seeds.js";
import type { OptionTable } from "../../util/options.js";

/** `s3gym run`'s preflight switches: each turns a check before the first step call off. */
export const PREFLIGHT_OPTIONS: OptionTable<{ preflight: boolean; probeWindow: boolean }> = {
  preflight: { name: "no-preflight", kind: { type: "switch", on: false }, default: true, about: "skip the check of every endpoint before the first step call" },
  probeWindow: { name: "no-probe-window", kind: { type: "switch", on: false }, default: true, about: "skip probing the window of a server that states none" },
};

/** The first step prompt of `game` under `settings` (exploration episode 1, empty experience). */
export function firstStepPrompt(game: Game, settings: ProtocolSettings) {
  const cfg = resolveConfig(game, "explore", settings.maxSteps);
  const seed = exploreSeeds(settings.runSeed, game.name, 1)[0] ?? 0;
  const observation = game.observe(game.reset(seed, cfg.config, cfg.name));
  return buildStepMessages({ rules: cfg.rules, turns: [], observation, experience: "", rewardVisibility: settings.rewardVisibility });
}

function probeKey(t: PreflightTarget): string {
  const material = { format: 1, endpoint: endpointIdOf(t.baseUrl), model: t.model, sampling: t.sampling, maxTokensParam: t.maxTokensParam, messages: t.probe };
  return createHash("sha256").update(canonicalJson(material)).digest("hex");
}

export interface InvocationPreflight {
  reports: PreflightReport[];
  /** Every refusal, in model order. */
  problems: string[];
  /** What went wrong without stopping the run (a preflight cache that could not be written), said once. */
  warnings: string[];
}

/**
 * Checks every openai model of the invocation (builtin models need none). `settingsOf` gives each
 * model's settings (its max_tokens may override --max-new-tokens); `cacheDir` (null: --no-cache)
 * remembers passed probes.
 */
export async function preflightModels(
  models: readonly ResolvedModel[],
  o: { ctx: ModelContext; game: Game; settingsOf: (name: string) => ProtocolSettings; cacheDir: string | null; probeWindow?: boolean },
): Promise<InvocationPreflight> {
  const env = o.ctx.env ?? process.env;
  const targets = new Map<string, PreflightTarget>();
  // Every endpoint of a pool is checked on its own: each refusal names its host, and one endpoint
  // that fails stops the run (a replica serving another model or context must not slip in).
  for (const r of models)
    for (const baseUrl of r.baseUrls) {
      if (r.spec.scheme !== "openai") continue;
      const s = o.settingsOf(r.name);
      const t: PreflightTarget = {
        name: r.name,
        model: r.spec.model,
        baseUrl,
        apiKey: env[r.apiKeyEnv] ?? "",
        apiKeyEnv: r.apiKeyEnv,
        fromModelsFile: r.entry !== null,
        // The run sends a per-call seed with every request (callSeed); the probe sends one too.
        sampling: sentSampling(r, { max_tokens: s.maxNewTokens, seed: 0 }),
        maxTokensParam: r.maxTokensParam,
        contextTokens: s.contextTokens,
        maxNewTokens: s.maxNewTokens,
        tokenizer: s.tokenizer,
        timeoutMs: o.ctx.timeoutMs,
        probe: firstStepPrompt(o.game, s),
        probeWindow: o.probeWindow !== false,
      };
      const key = probeKey(t);
      if (!targets.has(key)) targets.set(key, t);
    }
  const dir = o.cacheDir ? join(o.cacheDir, "preflight") : null;
  const warnings: string[] = [];
  const reports = await Promise.all(
    [...targets].map(async ([key, t]) => {
      const file = dir ? join(dir, `${key}.json`) : null;
      let known = false;
      let window: number | undefined;
      if (file) {
        try {
          const c = JSON.parse(readFileSync(file, "utf8")) as { probe_ok?: unknown; window_ok_tokens?: unknown };
          known = c.probe_ok === true;
          if (known && typeof c.window_ok_tokens === "number" && Number.isSafeInteger(c.window_ok_tokens)) window = c.window_ok_tokens;
        } catch {
          known = false;
        }
      }
      const report = await preflightEndpoint({ ...t, probeKnownGood: known, ...(window !== undefined ? { windowKnownGood: window } : {}) });
      const learned = report.windowOk !== null && report.windowOk !== (window ?? null);
      if (file && dir && report.probeOk && (!known || learned)) {
        // Best-effort like the response cache: the probe is paid for already, and a cache that
        // cannot be written (a file where the folder goes, a full disk) only costs the next run a probe.
        try {
          mkdirSync(dir, { recursive: true });
          const tmp = `${file}.tmp-${process.pid}`;
          // Names and numbers only: no key, no prompt.
          writeFileSync(
            tmp,
            `${JSON.stringify({ probe_ok: true, model: t.model, host: report.host, max_model_len: report.maxModelLen, token_ratio: report.tokenRatio, ...(report.windowOk !== null ? { window_ok_tokens: report.windowOk } : {}) })}\n`,
          );
          renameSync(tmp, file);
        } catch (e) {
          if (warnings.length === 0) warnings.push(`preflight cache not written (${(e as { code?: string }).code ?? (e as Error).message} at ${file}); the run goes on, and the next one probes again`);
        }
      }
      return report;
    }),
  );
  // A pool's refusal says which of its endpoints failed and that the others can run without it.
  const poolSize = new Map(models.map((m) => [m.name, m.baseUrls.length]));
  for (const r of reports) {
    const n = poolSize.get(r.name) ?? 1;
    if (n > 1) r.problems = r.problems.map((p) => `${p} (${r.host} is one of the ${n} endpoints of the pool of '${r.name}': fix it, or drop it from the list to run on the others)`);
  }
  return { reports, problems: reports.flatMap((r) => r.problems), warnings };
}
