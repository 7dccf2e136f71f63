/** A config file the user must fix: one line naming the file and the field. */
export class ConfigError extends Error {
	override name = "ConfigError";
}
