/**
 * Where the protected paths a sandbox keeps read-only lie on disk right now: the host's roots
 * (workspace-relative, from the kernel's registry) applied to the workspace and to every nested
 * repository found on a short walk, each resolved to what exists. A root that exists is kept
 * read-only as it is; one that does not exist is represented by its topmost missing component,
 * which a sandbox must keep from being created (bubblewrap: an empty stand-in bound read-only;
 * Landlock: no right to create names in its parent).
 */
import { type Dirent, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** One protected root, workspace-relative, and whether it is a directory when it exists. */
export interface ProtectedRoot {
	path: string;
	directory: boolean;
}

export interface ProtectedLayout {
	/** Real paths, inside the workspace, that exist and stay read-only. */
	existing: string[];
	/**
	 * The first missing component of each absent root: what must not be created, or, `writable`,
	 * what may be created only as a pinned directory whose contents are checked after the command.
	 */
	absent: AbsentRoot[];
}

export interface AbsentRoot {
	path: string;
	directory: boolean;
	/**
	 * A missing `.git`: `git init` must be able to make a repository there, so the stand-in is a
	 * writable directory that cannot be renamed or replaced, and what git (or anything else) put
	 * in it is checked once the command ends (protected-sweep.ts). Every other absent root is held
	 * by a read-only stand-in.
	 */
	writable?: boolean;
}

/** The nested-repository walk stays cheap: this deep, this many directories, never into these. */
const NESTED_MAX_DEPTH = 3;
const NESTED_MAX_DIRS = 2_000;
const NESTED_SKIP = new Set(["node_modules", ".git", "dist", "build", "target", ".venv", "vendor"]);

export function isInside(path: string, dir: string): boolean {
	const rel = relative(dir, path);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/** Workspace-relative directories (not the workspace itself) that hold a `.git` entry, breadth first. */
export function nestedRepositories(workspace: string): string[] {
	const found: string[] = [];
	let level = [""];
	let seen = 0;
	for (let depth = 0; depth < NESTED_MAX_DEPTH && level.length > 0; depth++) {
		const next: string[] = [];
		for (const rel of level) {
			let entries: Dirent[];
			try {
				entries = readdirSync(join(workspace, rel), { withFileTypes: true });
			} catch {
				continue;
			}
			for (const e of entries) {
				if (rel !== "" && e.name === ".git") found.push(rel);
				if (!e.isDirectory() || NESTED_SKIP.has(e.name) || ++seen > NESTED_MAX_DIRS) continue;
				next.push(rel === "" ? e.name : `${rel}/${e.name}`);
			}
		}
		level = next;
	}
	return found;
}

/**
 * The roots for the workspace and each nested repository: a nested one gets the roots under `.git`.
 * `repositories` are the nested repositories when the caller found them already (the protected-path
 * scan, which looks deeper); otherwise the short walk above finds them.
 */
export function expandRoots(workspace: string, roots: readonly ProtectedRoot[], repositories?: readonly string[]): ProtectedRoot[] {
	const git = roots.filter((r) => r.path === ".git" || r.path.startsWith(".git/"));
	const nested = (repositories ?? nestedRepositories(workspace)).flatMap((repo) => git.map((r) => ({ ...r, path: `${repo}/${r.path}` })));
	return [...roots, ...nested];
}

function lstatKind(path: string): "dir" | "other" | "missing" {
	try {
		return lstatSync(path).isDirectory() ? "dir" : "other";
	} catch {
		return "missing";
	}
}

/**
 * Resolves each root against the disk. `.git` that is a file (a worktree's or a submodule's
 * pointer) is itself what stays read-only; a root under a missing `.git` makes `.git` the absent
 * name, a writable one (see AbsentRoot.writable). Symlinks are followed only to targets inside the workspace.
 */
export function protectedLayout(
	workspace: string,
	roots: readonly ProtectedRoot[],
	extraAbsolute: readonly string[] = [],
	repositories?: readonly string[],
): ProtectedLayout {
	const existing = new Set<string>();
	const absent = new Map<string, AbsentRoot>();
	const keep = (path: string) => {
		try {
			const real = realpathSync(path);
			if (isInside(real, workspace) && real !== workspace) existing.add(real);
		} catch {
			// Vanished between the look and the resolve: nothing to keep.
		}
	};
	for (const root of expandRoots(workspace, roots, repositories)) {
		const parts = root.path.split("/").filter((p) => p !== "" && p !== ".");
		if (parts.length === 0 || parts.includes("..")) continue;
		let path = workspace;
		for (let i = 0; i < parts.length; i++) {
			path = join(path, parts[i]!);
			const last = i === parts.length - 1;
			const kind = lstatKind(path);
			if (kind === "missing") {
				const gitDir = parts[i] === ".git" && !last;
				absent.set(path, { path, directory: last ? root.directory : true, ...(gitDir ? { writable: true } : {}) });
				break;
			}
			if (last || kind === "other") {
				// A file (or a link) where the root continues: that file is the control point to keep.
				keep(path);
				break;
			}
		}
	}
	for (const path of extraAbsolute) {
		try {
			statSync(path);
			keep(path);
		} catch {
			// Missing: Warden's own dirs are made by Warden, outside any command.
		}
	}
	// A missing name under another missing name is covered by the outer one.
	const absentList = [...absent.values()].filter((a) => ![...absent.keys()].some((q) => q !== a.path && isInside(a.path, q)));
	return { existing: [...existing], absent: absentList };
}
