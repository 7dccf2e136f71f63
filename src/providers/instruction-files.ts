/** Reads the instruction files (AGENTS.md and its override) a directory holds, and finds a repository's root. */
import { readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";

export const INSTRUCTIONS_FILE = "AGENTS.md";
export const OVERRIDE_FILE = "AGENTS.override.md";

export interface InstructionFile {
	path: string;
	text: string;
	/** The override file shadowed the plain one in this directory. */
	override: boolean;
	/** Why the file exists but could not be read (its text is then empty). */
	unreadable?: string;
}

/** The file's text; undefined when there is no such file; `{ unreadable }` when there is one that cannot be read. */
async function readIfFile(path: string): Promise<string | { unreadable: string } | undefined> {
	try {
		const info = await stat(path);
		if (!info.isFile()) return undefined;
		return await readFile(path, "utf8");
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return undefined;
		return { unreadable: code ?? (err instanceof Error ? err.message : String(err)) };
	}
}

function found(path: string, read: string | { unreadable: string }, override: boolean): InstructionFile {
	return typeof read === "string" ? { path, text: read, override } : { path, text: "", override, unreadable: read.unreadable };
}

/** The directory's override file if it has one, else its AGENTS.md, else nothing. */
export async function instructionFileIn(dir: string): Promise<InstructionFile | undefined> {
	const overridePath = join(dir, OVERRIDE_FILE);
	const override = await readIfFile(overridePath);
	if (override !== undefined) return found(overridePath, override, true);
	const path = join(dir, INSTRUCTIONS_FILE);
	const text = await readIfFile(path);
	return text === undefined ? undefined : found(path, text, false);
}

/** The nearest directory at or above `dir` that holds `.git` (a directory, or a worktree's file); undefined outside a repository. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
	for (let current = dir; ; current = dirname(current)) {
		try {
			await stat(join(current, ".git"));
			return current;
		} catch {
			// Not here: look one level up.
		}
		if (dirname(current) === current) return undefined;
	}
}
