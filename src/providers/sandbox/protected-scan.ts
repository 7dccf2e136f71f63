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

/** Dependency and build folders: their size would eat the walk, and no tool of the user's runs control files from them. */
const SKIP_DIRS = new Set(["node_modules", "dist", "build", "target", ".venv", "vendor", "__pycache__"]);

/** Git's bulk storage inside a git dir: objects, refs and logs hold no file git reads to find config or programs. */
const GIT_BULK = new Set(["refs", "logs", "lfs"]);
const OBJECT_FANOUT = /^[0-9a-f]{2}$/;

/** A child name no rule singles out: a directory that protects it protects every name beneath. */
const PROBE_CHILD = "warden-probe-child";

function kindOf(e: Dirent): ScannedKind | undefined {
	if (e.isSymbolicLink()) return "link";
	if (e.isDirectory()) return "dir";
	if (e.isFile()) return "file";
	return undefined;
}

/** Whether the walk has no reason to enter `name` under `parentRel`. */
function skipped(parentRel: string, name: string): boolean {
	if (SKIP_DIRS.has(name)) return true;
	const parts = parentRel.split("/");
	const last = parts[parts.length - 1];
	if (last === ".git" && GIT_BULK.has(name)) return true;
	if (last === "objects" && parts[parts.length - 2] === ".git" && (name === "pack" || OBJECT_FANOUT.test(name))) return true;
	return false;
}

export function scanProtected(workspace: string, isProtected: ProtectedMatch): ProtectedScan {
	const found: ScannedPath[] = [];
	let level = [""];
	let dirs = 0;
	let complete = true;
	for (let depth = 0; level.length > 0; depth++) {
		if (depth >= SCAN_MAX_DEPTH) {
			complete = false;
			break;
		}
		const next: string[] = [];
		for (const rel of level) {
			let entries: Dirent[];
			try {
				entries = readdirSync(rel === "" ? workspace : join(workspace, rel), { withFileTypes: true });
			} catch {
				continue;
			}
			for (const e of entries) {
				const kind = kindOf(e);
				if (kind === undefined) continue;
				const child = rel === "" ? e.name : `${rel}/${e.name}`;
				const whole = kind === "dir" && isProtected(`${child}/${PROBE_CHILD}`);
				if (whole || isProtected(child)) found.push({ rel: child, kind, whole });
				// A whole protected directory is kept as one; its insides need no look of their own.
				if (kind !== "dir" || whole || skipped(rel, e.name)) continue;
				if (++dirs > SCAN_MAX_DIRS) {
					complete = false;
					continue;
				}
				next.push(child);
			}
		}
		level = next;
	}
	return { found, complete };
}
