/**
 * The disk side of Agent Skills: the folders a skills directory holds, each folder's SKILL.md, and
 * the other files a skill ships. Links are never followed: a project's skills directory cannot make
 * the host read a file from somewhere else on its behalf.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";

export const SKILL_FILE = "SKILL.md";
/** A SKILL.md longer than this is not read at all. */
export const SKILL_FILE_MAX_BYTES = 256 * 1024;
/** At most this many of a skill's other files are listed. */
export const SKILL_FILES_LISTED = 200;

export type FolderEntry = { name: string; dir: string; file: string } | { name: string; dir: string; file: string; skipped: string; field: string };

/** The skill folders directly under `root`; none when it does not exist. */
export async function skillFolders(root: string): Promise<FolderEntry[]> {
	let names: string[];
	try {
		const info = await lstat(root);
		if (!info.isDirectory()) return [];
		names = (await readdir(root)).sort();
	} catch (err) {
		if (isMissing(err)) return [];
		throw err;
	}
	const found: FolderEntry[] = [];
	for (const name of names) {
		if (name.startsWith(".")) continue;
		const dir = join(root, name);
		const file = join(dir, SKILL_FILE);
		const info = await lstat(dir).catch(() => undefined);
		if (info?.isSymbolicLink()) {
			found.push({ name, dir, file: dir, skipped: "is a symbolic link: skill folders are not followed through links", field: "SKILL.md" });
			continue;
		}
		if (!info?.isDirectory()) continue;
		const skill = await lstat(file).catch(() => undefined);
		if (!skill) {
			found.push({ name, dir, file, skipped: "is missing: a skill folder holds a SKILL.md", field: "SKILL.md" });
			continue;
		}
		if (!skill.isFile()) {
			found.push({ name, dir, file, skipped: skill.isSymbolicLink() ? "is a symbolic link: not followed" : "is not a regular file", field: "SKILL.md" });
			continue;
		}
		if (skill.size > SKILL_FILE_MAX_BYTES) {
			found.push({ name, dir, file, skipped: `is ${skill.size} bytes, more than the ${SKILL_FILE_MAX_BYTES} a SKILL.md may have`, field: "SKILL.md" });
			continue;
		}
		found.push({ name, dir, file });
	}
	return found;
}

/** The file's text and its sha256, read without following a link in its last component. */
export async function readSkillFile(file: string): Promise<{ text: string; sha256: string }> {
	// O_NOFOLLOW: a link swapped in after the folder was listed is refused, not read.
	const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
	try {
		const bytes = await handle.readFile();
		return { text: bytes.toString("utf8"), sha256: createHash("sha256").update(bytes).digest("hex") };
	} finally {
		await handle.close();
	}
}

/** The skill's files other than SKILL.md, `/`-separated relative to its folder, sorted; links are listed, not entered. */
export async function skillFiles(dir: string, limit = SKILL_FILES_LISTED): Promise<{ files: string[]; truncated: boolean }> {
	const files: string[] = [];
	const walk = async (current: string): Promise<boolean> => {
		const entries = (await readdir(current, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		for (const entry of entries) {
			const full = join(current, entry.name);
			if (entry.isDirectory()) {
				if (!(await walk(full))) return false;
				continue;
			}
			const rel = relative(dir, full).split(sep).join("/");
			if (rel === SKILL_FILE) continue;
			if (files.length >= limit) return false;
			files.push(rel);
		}
		return true;
	};
	const complete = await walk(dir).catch((err) => {
		if (isMissing(err)) return true;
		throw err;
	});
	return { files, truncated: !complete };
}

function isMissing(err: unknown): boolean {
	const code = (err as NodeJS.ErrnoException).code;
	return code === "ENOENT" || code === "ENOTDIR";
}
