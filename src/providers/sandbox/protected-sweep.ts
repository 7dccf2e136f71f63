/**
 * What a sandbox cannot keep from being created, checked once the command has ended. A sandbox
 * holds every protected path that exists (read-only binds, or no Landlock rule) and the absent
 * ones it can name in advance (stand-ins); it cannot hold a name in a directory it does not know
 * of yet (`mkdir -p a/b && echo … > a/b/.envrc`), nor one whose empty stand-in would break git
 * (`.git/commondir`), nor the files of a repository the command itself creates. So the protected
 * paths are walked before the command and again after it: each one that is new (or is another
 * file than before under the same name) is checked — git's own files of a new repository, worktree
 * or submodule stay (git-own-files.ts) — and every other is renamed to `<name>.warden-refused`, out of
 * reach of what would have run it (git, direnv, Warden's next session). Renamed rather than
 * deleted: a command may have moved real work there, and the person decides what to keep.
 *
 * The check runs when no process of the command is left (both providers kill the whole tree
 * first), so nothing swaps a path between the look and the rename. What it cannot close is the
 * time the command ran: a person's own git running at that very moment in that new repository.
 */
import { existsSync, lstatSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { isGitDirConfig, notGitsOwn, readRegular, safePartOfGitConfig } from "./git-own-files.js";
import { type ProtectedMatch, type ProtectedScan, type ScannedKind, type ScannedPath, scanProtected } from "./protected-scan.js";

export interface ProtectedSnapshot {
	workspace: string;
	isProtected: ProtectedMatch;
	scan: ProtectedScan;
	/** Identity of each protected path before the command: kind and inode. */
	before: ReadonlyMap<string, string>;
}

/** The suffix a refused path gets: a name no rule protects, and one a person sees in `git status`. */
export const REFUSED_SUFFIX = ".warden-refused";

function identity(workspace: string, rel: string, kind: ScannedKind): string {
	try {
		return `${kind}:${lstatSync(join(workspace, rel)).ino}`;
	} catch {
		return `${kind}:gone`;
	}
}

/**
 * The protected paths before the command: a fresh walk, or one already made (`scan`) with the
 * stand-ins made since (`madeSince`, absolute paths), which the walk after will find too.
 */
export function snapshotProtected(workspace: string, isProtected: ProtectedMatch, scan = scanProtected(workspace, isProtected), madeSince: readonly string[] = []): ProtectedSnapshot {
	const before = new Map(scan.found.map((f) => [f.rel, identity(workspace, f.rel, f.kind)]));
	for (const abs of madeSince) {
		const rel = relative(workspace, abs).split(sep).join("/");
		const kind = kindAt(abs);
		if (kind !== undefined) before.set(rel, identity(workspace, rel, kind));
	}
	return { workspace, isProtected, scan, before };
}

/** The nested repositories the walk found: each folder below the top that holds a `.git`. */
export function scannedRepositories(scan: ProtectedScan): string[] {
	return scan.found.filter((f) => f.rel !== ".git" && f.rel.endsWith("/.git")).map((f) => f.rel.slice(0, -"/.git".length));
}

function putAside(abs: string): string {
	let target = `${abs}${REFUSED_SUFFIX}`;
	for (let n = 2; existsSync(target); n++) target = `${abs}${REFUSED_SUFFIX}-${n}`;
	renameSync(abs, target);
	return target;
}

function kindAt(abs: string): ScannedKind | undefined {
	try {
		const st = lstatSync(abs);
		// A FIFO or a socket under a protected name is refused like a file.
		return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "file";
	} catch {
		return undefined;
	}
}

/** Writes back a refused git config's safe entries, so the repository keeps what `git init` gave it. */
function keepSafeConfig(abs: string, aside: string): boolean {
	const text = readRegular(aside);
	const safe = text === undefined ? undefined : safePartOfGitConfig(text);
	if (safe === undefined) return false;
	writeFileSync(abs, safe, { flag: "wx", mode: 0o644 });
	return true;
}

/**
 * Checks what the command made among the protected paths; puts aside each that is not git's own.
 * Returns one line per path put aside (workspace-relative, with why), for the command's denials.
 */
export function sweepProtected(snapshot: ProtectedSnapshot, gitDirStandIns: readonly string[] = []): string[] {
	const { workspace, isProtected, before } = snapshot;
	const refused: string[] = [];
	// A writable `.git` stand-in that did not become a repository (no HEAD) holds nothing of git's: all of it is put aside.
	for (const dir of gitDirStandIns) {
		let names: string[];
		try {
			names = readdirSync(dir);
		} catch {
			continue;
		}
		if (names.length === 0 || names.includes("HEAD")) continue;
		const target = putAside(dir);
		refused.push(`${relative(workspace, dir)} (a .git directory that is not a repository; renamed to ${basename(target)})`);
	}
	const after = scanProtected(workspace, isProtected).found;
	const changed = after.filter((f) => before.get(f.rel) !== identity(workspace, f.rel, f.kind));
	changed.sort((a, b) => a.rel.split("/").length - b.rel.split("/").length);
	const aside: string[] = [];
	const refuse = (rel: string, why: string, kind: ScannedKind) => {
		try {
			const abs = join(workspace, rel);
			const target = putAside(abs);
			aside.push(rel);
			const kept = kind === "file" && isGitDirConfig(rel) ? keepSafeConfig(abs, target) : false;
			refused.push(`${rel} (${why}; renamed to ${basename(target)}${kept ? ", its safe entries kept" : ""})`);
		} catch (err) {
			refused.push(`${rel} (${why}; could not be renamed: ${(err as Error).message})`);
		}
	};
	const check = (entry: Pick<ScannedPath, "rel" | "kind" | "whole">) => {
		if (aside.some((a) => entry.rel.startsWith(`${a}/`))) return;
		const why = notGitsOwn(workspace, entry.rel, entry.kind);
		if (why !== undefined) return refuse(entry.rel, why, entry.kind);
		// An accepted new whole directory (a new repository's hooks): the walk did not look inside, so each entry is checked here.
		if (entry.kind === "dir" && entry.whole) {
			let names: string[] = [];
			try {
				names = readdirSync(join(workspace, entry.rel));
			} catch {
				return;
			}
			for (const name of names) {
				const rel = `${entry.rel}/${name}`;
				const kind = kindAt(join(workspace, rel));
				if (kind !== undefined) check({ rel, kind, whole: false });
			}
		}
	};
	for (const entry of changed) check(entry);
	return refused;
}
