/**
 * The one error type for input a person can fix before anything runs: a flag, a name (game,
 * pathway, config, model scheme), a config file, a clash with logs already on disk. Its message
 * names the field and the fix. The CLI maps errors to exit codes by type, never by message text:
 * a ConfigError (or a subclass) exits 2, anything else 1.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** A bad flag or option value: a ConfigError (exit 2), named for the CLI (re-exported by src/cli/shared/args.ts). */
export class UsageError extends ConfigError {
  override name = "UsageError";
}
