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
	const first = value.charCodeAt(0);
	// Neither pattern can match unless the text starts with `~` or `$`; most paths don't.
	if (first !== 0x7e && first !== 0x24) return value;
	if (HOME_PREFIX.test(value)) return value.replace(HOME_PREFIX, home);
	const other = OTHER_USER_HOME.exec(value);
	if (other) return value.replace(OTHER_USER_HOME, other[1] === "root" ? "/root" : `/home/${other[1]}`);
	return value;
}

function trimTrailingSlash(p: string): string {
	let end = p.length;
	while (end > 1 && p.charCodeAt(end - 1) === 0x2f) end--;
	return end === p.length ? p : p.slice(0, end);
}

/** A `.` or `..` segment, or an empty one (`//`): text with none of these needs no normalizing. */
const NEEDS_NORMALIZING = /(?:^|\/)\.{1,2}(?:\/|$)|\/\//;

/**
 * posix.resolve(workspace, value) without its general machinery where the answer is plain
 * concatenation: an absolute, already normal workspace and a value with no `.`, `..` or empty
 * segments. Anything else goes to posix.resolve.
 */
function resolved(workspace: string, normalWorkspace: boolean, value: string): string {
	if (!normalWorkspace || NEEDS_NORMALIZING.test(value)) return posix.resolve(workspace, value);
	if (value.charCodeAt(0) === 0x2f) return trimTrailingSlash(value);
	const base = trimTrailingSlash(workspace);
	if (value === "") return base;
	return trimTrailingSlash(base === "/" ? `/${value}` : `${base}/${value}`);
}

/** The normalized root of the last workspace asked about, and the prefix of paths inside it: one decision asks about one workspace many times. */
interface WorkspaceRoot {
	workspace: string;
	/** Absolute with no `.`, `..` or empty segments: paths under it are joined, not resolved. */
	normal: boolean;
	root: string;
	prefix: string;
}

let lastRoot: WorkspaceRoot | undefined;

function workspaceRoot(workspace: string): WorkspaceRoot {
	if (lastRoot?.workspace !== workspace) {
		const normal = workspace.charCodeAt(0) === 0x2f && !NEEDS_NORMALIZING.test(workspace);
		const root = normal ? trimTrailingSlash(workspace) : trimTrailingSlash(posix.normalize(workspace));
		lastRoot = { workspace, normal, root, prefix: root === "/" ? "/" : `${root}/` };
	}
	return lastRoot;
}

/** canonicalPath's absolute path alone, for callers that need no workspace-relative answer. */
export function absolutePath(value: string, base: string, home: string): string {
	return trimTrailingSlash(resolved(base, workspaceRoot(base).normal, expandHome(value, home)));
}

/** Resolve a path (or glob) written relative to the workspace; purely textual, the filesystem is not consulted. */
export function canonicalPath(value: string, workspace: string, home: string): CanonicalPath {
	const { normal, root, prefix } = workspaceRoot(workspace);
	const absolute = trimTrailingSlash(resolved(workspace, normal, expandHome(value, home)));
	if (absolute === root) return { absolute, relative: ".", inside: true };
	if (absolute.startsWith(prefix)) return { absolute, relative: absolute.slice(prefix.length), inside: true };
	return { absolute, inside: false };
}
