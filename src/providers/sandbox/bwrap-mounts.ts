/**
 * The binds that keep protected paths whole inside bubblewrap's writable workspace. A read-only
 * bind keeps a path's contents; it does not keep its parent from being renamed (`mv .git aside`
 * carries `.git/hooks`'s bind away with it, and a fresh `.git` takes its place). So every directory
 * between the workspace and a protected path is bound onto itself too: a mount point cannot be
 * renamed, removed or renamed over (EBUSY), while what lies in it stays writable. Parents are
 * bound before their children, or a child's bind would be hidden under its parent's.
 */
import { dirname, sep } from "node:path";
import { isInside } from "./protected-layout.js";

export interface BwrapMounts {
	/** Real paths inside the workspace to keep read-only. */
	readOnly: readonly string[];
	/** Real directories inside the workspace that stay writable but must not be renamed or replaced. */
	pinned: readonly string[];
}

const depth = (path: string) => path.split(sep).length;

/** bwrap arguments, in order: `--bind P P` for each pinned directory and ancestor, `--ro-bind P P` for each read-only path. */
export function bwrapMountArgs(workspace: string, mounts: BwrapMounts): string[] {
	const readOnly = new Set(mounts.readOnly.filter((p) => p !== workspace && isInside(p, workspace)));
	const pinned = new Set<string>();
	const pin = (path: string) => {
		for (let dir = path; dir !== workspace && isInside(dir, workspace); dir = dirname(dir)) pinned.add(dir);
	};
	for (const path of readOnly) pin(dirname(path));
	for (const path of mounts.pinned) if (isInside(path, workspace)) pin(path);
	// What lies inside a read-only bind is read-only and immovable already.
	const underReadOnly = (path: string) => [...readOnly].some((ro) => ro !== path && isInside(path, ro));
	const all = [...new Set([...pinned, ...readOnly])].filter((p) => !underReadOnly(p));
	all.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
	return all.flatMap((p) => (readOnly.has(p) ? ["--ro-bind", p, p] : ["--bind", p, p]));
}
