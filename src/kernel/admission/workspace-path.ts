/** Canonical paths for policy: `~` and `$HOME` expanded, resolved against the workspace, inside or not. */
import { posix } from "node:path";

export interface CanonicalPath {
	/** Absolute, normalized path (no `.`/`..` segments, no trailing slash). */
	absolute: string;
	/** Workspace-relative path when inside the workspace (`.` for the workspace itself). */
	relative?: string;
	inside: boolean;
}

const HOME_PREFIX = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/;
const OTHER_USER_HOME = /^~([A-Za-z_][A-Za-z0-9_.-]*)(?=\/|$)/;

/** Expand a leading `~`, `~user`, `$HOME` or `${HOME}`; other text is returned as is. */
export function expandHome(value: string, home: string): string {
	if (HOME_PREFIX.test(value)) return value.replace(HOME_PREFIX, home);
	const other = OTHER_USER_HOME.exec(value);
	if (other) return value.replace(OTHER_USER_HOME, other[1] === "root" ? "/root" : `/home/${other[1]}`);
	return value;
}

function trimTrailingSlash(p: string): string {
	return p.length > 1 ? p.replace(/\/+$/, "") : p;
}

/** Resolve a path (or glob) written relative to the workspace; purely textual, the filesystem is not consulted. */
export function canonicalPath(value: string, workspace: string, home: string): CanonicalPath {
	const absolute = trimTrailingSlash(posix.resolve(workspace, expandHome(value, home)));
	const root = trimTrailingSlash(posix.normalize(workspace));
	if (absolute === root) return { absolute, relative: ".", inside: true };
	const prefix = root === "/" ? "/" : `${root}/`;
	if (absolute.startsWith(prefix)) return { absolute, relative: absolute.slice(prefix.length), inside: true };
	return { absolute, inside: false };
}
