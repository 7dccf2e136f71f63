/**
 * Empty stand-ins for protected paths that do not exist yet, so that bubblewrap can bind them
 * read-only and a command cannot create them (`mkdir .warden`, `git init`, `echo > .envrc`). Each
 * is made just before a command starts and removed after it ends, when Warden made it and it is
 * still empty. Counted per path within the process: a second command running at the same time
 * shares the stand-in, and it stays until the last of them ends (removed under a running command,
 * the name would be free for that command to create).
 */
import { closeSync, lstatSync, mkdirSync, openSync, rmdirSync, unlinkSync } from "node:fs";

export interface StandIn {
	path: string;
	directory: boolean;
}

/** The stand-ins in use: how many commands hold each, and whether this process made it. */
const held = new Map<string, { count: number; made: boolean; directory: boolean }>();

function make(p: StandIn): boolean {
	try {
		if (p.directory) mkdirSync(p.path, { mode: 0o755 });
		else closeSync(openSync(p.path, "wx", 0o644));
		return true;
	} catch (err) {
		// Made meanwhile by someone else: it exists, which is all the bind needs.
		if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
		throw err;
	}
}

function removeIfEmpty(path: string, directory: boolean): void {
	try {
		if (directory) rmdirSync(path);
		else if (lstatSync(path).isFile() && lstatSync(path).size === 0) unlinkSync(path);
	} catch {
		// Not empty any more, or gone: either way it is no longer ours to remove.
	}
}

/** Makes the stand-ins (or joins ones already held); the returned function gives them back. */
export function acquireStandIns(wanted: readonly StandIn[]): () => void {
	const mine: string[] = [];
	try {
		for (const p of wanted) {
			const entry = held.get(p.path);
			if (entry) entry.count++;
			else held.set(p.path, { count: 1, made: make(p), directory: p.directory });
			mine.push(p.path);
		}
	} catch (err) {
		release(mine);
		throw err;
	}
	let released = false;
	return () => {
		if (released) return;
		released = true;
		release(mine);
	};
}

function release(paths: readonly string[]): void {
	for (const path of [...paths].reverse()) {
		const entry = held.get(path);
		if (!entry) continue;
		if (--entry.count > 0) continue;
		held.delete(path);
		if (entry.made) removeIfEmpty(path, entry.directory);
	}
}
