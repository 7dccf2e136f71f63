/** A host's mistake in how it opened a session or runtime: one line, meant for the user. */
export class RuntimeConfigError extends Error {
	override name = "RuntimeConfigError";
}
