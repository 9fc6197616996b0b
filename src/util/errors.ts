/**
 * The one error type for input a person can fix before anything runs: a flag, a name (game,
 * pathway, config, model scheme), a config file, a clash with logs already on disk. Its message
 * names the field and the fix. The CLI maps errors to exit codes by type, never by message text:
 * a ConfigError (or a subclass) exits 2, anything else 1.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}
