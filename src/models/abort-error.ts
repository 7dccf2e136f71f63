/**
 * Rejection of a model call whose AbortSignal fired. Named "AbortError" like the DOM one, so callers
 * can treat a cancelled model call the same way they treat a cancelled fetch.
 */
export class AbortError extends Error {
	override name = "AbortError";

	constructor(message = "model request aborted") {
		super(message);
	}
}

export function isAbortError(error: unknown): boolean {
	return error instanceof Error && error.name === "AbortError";
}
