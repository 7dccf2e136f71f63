/**
 * The starting workspace of a replay: a copy of a directory with the session's own changes taken
 * back. A file as the session left it gets its before-image (or is removed, if the session created
 * it); a file as it was at the start stays; a file changed since (by someone else) is used as found
 * and named in the notes, so the replay shows what that change does to the session.
 */
import { createHash } from "node:crypto";
import type { FileItem } from "./replay-format.js";

/**
 * The disk work a replay needs. The runtime touches no filesystem itself (only providers do), so
 * the host hands this in; the CLI's is in src/surfaces/cli/replay-command.ts.
 */
export interface ReplayDisk {
	/** Copies the directory `source` into a new temporary directory and returns the copy's path. */
	copyDirectory(source: string): Promise<string>;
	/** A new, empty temporary directory. */
	temporaryDirectory(): Promise<string>;
	/** A regular file's bytes under `root`, or undefined when nothing is there. */
	readFile(root: string, path: string): Promise<Buffer | undefined>;
	/** Writes a file under `root`, creating its parent directories. */
	writeFile(root: string, path: string, bytes: Buffer): Promise<void>;
	removeFile(root: string, path: string): Promise<void>;
	removeDirectory(dir: string): Promise<void>;
}

function sha256(bytes: Buffer): string {
	return createHash("sha256").update(bytes).digest("hex");
}

/** Prepares the copy in place; returns one note per file not put back to its recorded start. */
export async function restoreStart(disk: ReplayDisk, root: string, files: readonly FileItem[]): Promise<string[]> {
	const notes: string[] = [];
	for (const file of files) {
		const bytes = await disk.readFile(root, file.path);
		const current = bytes === undefined ? null : sha256(bytes);
		if (current === file.sha256) continue;
		if (current !== file.end_sha256) {
			notes.push(`${file.path}: neither as the session found it nor as it left it; used as found`);
			continue;
		}
		if (file.sha256 === null) await disk.removeFile(root, file.path);
		else if (file.content_b64 !== undefined) {
			const before = Buffer.from(file.content_b64, "base64");
			// The before-image must be the content the session found: a file whose bytes do not hash right is not restored.
			if (sha256(before) !== file.sha256) notes.push(`${file.path}: its before-image does not match its recorded sha256; used as found`);
			else await disk.writeFile(root, file.path, before);
		} else notes.push(`${file.path}: no before-image to restore (${file.reason ?? "not kept"}); used as found`);
	}
	return notes;
}
