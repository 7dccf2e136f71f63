/** The CLI's error contract: one line on stderr, a meaningful exit code, no stack trace. */
import { shownLines } from "./shown-lines.js";

/** A usage or configuration problem the user must fix (exit 2). */
export class UsageError extends Error {
	override name = "UsageError";
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Error classes whose messages are already written for the user. */
const USER_FACING = new Set([
	"UsageError",
	"RuntimeConfigError",
	"ConfigError",
	"ModelError",
	"StoreError",
	"DirectoryProbeError",
	"RuleSyntaxError",
	"BenchError",
	"CommanderError",
]);

export function reportError(err: unknown, write: (line: string) => void = (l) => process.stderr.write(l)): number {
	const error = err instanceof Error ? err : new Error(String(err));
	const firstLine = (error.message.split("\n").find((l) => l.trim() !== "") ?? error.name).trim();
	const userFacing = USER_FACING.has(error.name);
	// A message may quote what it refused (a config value, a path, a model's error text).
	write(shownLines([`warden: ${userFacing ? firstLine : `internal error: ${firstLine}`}`]));
	if (process.env.WARDEN_DEBUG && error.stack) write(`${error.stack}\n`);
	return EXIT.usage;
}
