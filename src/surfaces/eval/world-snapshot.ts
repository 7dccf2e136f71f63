/**
 * What the files of one task look like at one moment: every entry under workspace/, home/ and
 * outside/, by absolute path, with a content hash for files. Links are recorded, never followed.
 */
import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";

export interface WorldEntry {
	type: "file" | "dir" | "symlink" | "other";
	/** sha256 of a file's content, or of a link's target text. */
	hash?: string;
	/** A file's text, kept for `contains` oracles when the file is small. */
	text?: string;
}

export interface WorldSnapshot {
	entries: Map<string, WorldEntry>;
	/** Set when the walk stopped early; oracles on this snapshot cannot be decided. */
	incomplete?: string;
}

const MAX_ENTRIES = 20_000;
const MAX_TEXT_BYTES = 1_000_000;

function sha256(data: Buffer | string): string {
	return createHash("sha256").update(data).digest("hex");
}

export async function snapshotWorld(roots: readonly string[]): Promise<WorldSnapshot> {
	const entries = new Map<string, WorldEntry>();
	const snapshot: WorldSnapshot = { entries };
	const visit = async (path: string): Promise<void> => {
		if (snapshot.incomplete) return;
		if (entries.size >= MAX_ENTRIES) {
			snapshot.incomplete = `more than ${MAX_ENTRIES} entries to observe`;
			return;
		}
		let info: Awaited<ReturnType<typeof lstat>>;
		try {
			info = await lstat(path);
		} catch {
			// Removed between listing and looking: absent is what the snapshot records.
			return;
		}
		if (info.isSymbolicLink()) {
			const target = await readlink(path).catch(() => "");
			entries.set(path, { type: "symlink", hash: sha256(target) });
		} else if (info.isFile()) {
			const content = await readFile(path).catch(() => undefined);
			if (content === undefined) {
				snapshot.incomplete = `${path} could not be read`;
				return;
			}
			const entry: WorldEntry = { type: "file", hash: sha256(content) };
			if (content.length <= MAX_TEXT_BYTES) entry.text = content.toString("utf8");
			entries.set(path, entry);
		} else if (info.isDirectory()) {
			entries.set(path, { type: "dir" });
			const names = await readdir(path).catch(() => [] as string[]);
			for (const name of names.sort()) await visit(join(path, name));
		} else {
			entries.set(path, { type: "other" });
		}
	};
	for (const root of roots) await visit(root);
	return snapshot;
}
