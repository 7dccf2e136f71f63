/** Turns SQLite and filesystem failures into the one-line StoreError messages a user sees. */

/** An error's message on one line, for messages that must stay one line. */
export function oneLine(error: unknown): string {
	const text = error instanceof Error ? error.message : String(error);
	return text.replace(/\s*\n\s*/g, " ").trim();
}

/** SQLite's result codes for a file that is not a database, or one whose pages are damaged. */
const NOT_A_DATABASE = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);

export function isNotADatabase(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && (NOT_A_DATABASE.has(code) || code.startsWith("SQLITE_CORRUPT_"));
}
