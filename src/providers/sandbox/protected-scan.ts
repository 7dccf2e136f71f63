/**
 * The protected paths that exist anywhere in the workspace right now, found by one bounded walk
 * and the host's registry (handed in as a predicate: this layer knows paths, not rules). Every
 * `**` rule then holds at every depth the walk reaches — a nested `.envrc`, a `.warden/` in a
 * subfolder, a submodule's git dir under `.git/modules/` — not only at the roots a sandbox binds
 * by name. The same walk, run again after a command, tells what the command created
 * (protected-sweep.ts).
 */
import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";

/** Whether a workspace-relative path is protected: the kernel's registry, as `ProtectedPaths.covers`. */
export type ProtectedMatch = (rel: string) => boolean;

export type ScannedKind = "dir" | "file" | "link";

export interface ScannedPath {
	/** Workspace-relative, `/`-separated. */
	rel: string;
	kind: ScannedKind;
	/**
	 * A directory everything beneath which is protected (`.warden`, `.git/hooks`): kept read-only as
	 * a whole. A protected directory that is not whole (`.git` itself) only must not be replaced.
	 */
	whole: boolean;
}

export interface ProtectedScan {
	found: ScannedPath[];
	/** False when the walk stopped at its bounds: paths deeper or further on were not looked at. */
	complete: boolean;
}

/** The walk's bounds: this deep, this many directories. */
export const SCAN_MAX_DEPTH = 12;
export const SCAN_MAX_DIRS = 20_000;

/** Dependency and build folders (outside git dirs): their size would eat the walk, and no tool of the user's runs control files from them. */
const SKIP_DIRS = new Set(["node_modules", "dist", "build", "target", ".venv", "vendor", "__pycache__"]);

/** Git's bulk storage in a git dir: refs, logs and objects hold no file git reads to find config or programs. */
const GIT_BULK = new Set(["refs", "logs", "lfs"]);
/** In a git dir's `objects`, all but `info` (where `alternates` lives). */
const OBJECTS_BULK = /^(?:[0-9a-f]{2}|pack)$/;

/** A child name no rule singles out: a directory that protects it protects every name beneath. */
const PROBE_CHILD = "warden-probe-child";

/** A FIFO or a socket counts as a file: under a protected name it is held and checked like one. */
function kindOf(e: Dirent): ScannedKind {
	if (e.isSymbolicLink()) return "link";
	if (e.isDirectory()) return "dir";
	return "file";
}

/** Where a directory lies, for what the walk may pass over beneath it. */
type Place = "work" | "git" | "git-dir" | "objects";

/**
 * Where a child directory lies: inside a `.git` nothing is passed over by name (a submodule may
 * be called `vendor` or `build`), except a git dir's own bulk storage. A git dir is `.git`, or a
 * directory under one that holds a HEAD (a submodule's or a worktree's).
 */
function placeOf(parent: Place, name: string, childEntries: () => string[]): Place | "skip" {
	if (parent === "work") return name === ".git" ? "git-dir" : SKIP_DIRS.has(name) ? "skip" : "work";
	if (parent === "git-dir") {
		if (GIT_BULK.has(name)) return "skip";
		if (name === "objects") return "objects";
	}
	if (parent === "objects") return OBJECTS_BULK.test(name) ? "skip" : "git";
	return childEntries().includes("HEAD") ? "git-dir" : "git";
}

/** A directory the walk will read, with its entries when deciding its place read them already. */
interface Pending {
	rel: string;
	place: Place;
	entries?: Dirent[];
}

export function scanProtected(workspace: string, isProtected: ProtectedMatch): ProtectedScan {
	const found: ScannedPath[] = [];
	let level: Pending[] = [{ rel: "", place: "work" }];
	let dirs = 0;
	let complete = true;
	const list = (rel: string): Dirent[] => {
		try {
			return readdirSync(rel === "" ? workspace : join(workspace, rel), { withFileTypes: true });
		} catch {
			return [];
		}
	};
	for (let depth = 0; level.length > 0; depth++) {
		if (depth >= SCAN_MAX_DEPTH) {
			complete = false;
			break;
		}
		const next: Pending[] = [];
		for (const dir of level) {
			const entries = dir.entries ?? list(dir.rel);
			for (const e of entries) {
				const kind = kindOf(e);
				const child = dir.rel === "" ? e.name : `${dir.rel}/${e.name}`;
				const whole = kind === "dir" && isProtected(`${child}/${PROBE_CHILD}`);
				if (whole || isProtected(child)) found.push({ rel: child, kind, whole });
				// A whole protected directory is kept as one; its insides need no look of their own.
				if (kind !== "dir" || whole) continue;
				let childEntries: Dirent[] | undefined;
				const names = () => {
					childEntries ??= list(child);
					return childEntries.map((c) => c.name);
				};
				const place = placeOf(dir.place, e.name, names);
				if (place === "skip") continue;
				if (++dirs > SCAN_MAX_DIRS) {
					complete = false;
					continue;
				}
				next.push({ rel: child, place, ...(childEntries ? { entries: childEntries } : {}) });
			}
		}
		level = next;
	}
	return { found, complete };
}
