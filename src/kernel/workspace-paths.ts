/**
 * Confines a user- or model-supplied path to the workspace. The decision is made on the real
 * target (every symlink resolved, including a dangling last one and the ancestors of a file that
 * does not exist yet), and the caller then operates on that real target, so what is checked is
 * what is touched — up to races with other processes, which only a sandbox can close.
 */
import * as path from "node:path";
import { errorCode, lstatIfExistsNow, readlinkNow, realpath, realpathNow } from "../providers/fs-provider.js";
import { InvalidPathError } from "./kernel-errors.js";
import { WorkspaceEscapeError } from "./primitives.js";

export interface WorkspaceRoot {
	/** The workspace as the host named it, made absolute. */
	given: string;
	/** Its real path: the root every check is made against. */
	real: string;
}

export interface ResolvedPath {
	/** Workspace-relative, `/`-separated path of the real target; `.` for the workspace itself. */
	rel: string;
	/** Absolute real path of the target (it may not exist yet). */
	abs: string;
}

/** Symlink hops followed before giving up, as the OS does (ELOOP). */
const MAX_SYMLINK_HOPS = 40;

export async function workspaceRoot(workspace: string): Promise<WorkspaceRoot> {
	const given = path.resolve(workspace);
	return { given, real: await realpath(given) };
}

export async function resolveWorkspacePath(root: WorkspaceRoot, input: string): Promise<ResolvedPath> {
	if (input === "") throw new InvalidPathError("path is empty");
	if (input.includes("\0")) throw new InvalidPathError(`path ${displayPath(input)} contains a NUL byte`);

	let real: string;
	try {
		real = resolveReal(lexicalTarget(root, input), { hops: 0 });
	} catch (err) {
		throw describeResolveError(input, err);
	}
	const rel = insideRel(root.real, real);
	if (rel === undefined) throw new WorkspaceEscapeError(`path ${displayPath(input)} resolves outside the workspace`);
	return { rel, abs: real };
}

/** Absolute, normalized target; an absolute path under the workspace as named is moved onto its real path. */
function lexicalTarget(root: WorkspaceRoot, input: string): string {
	if (!path.isAbsolute(input)) return path.resolve(root.real, input);
	const abs = path.resolve(input);
	const underGiven = insideRel(root.given, abs);
	return underGiven === undefined ? abs : path.resolve(root.real, underGiven);
}

/** The `/`-separated path of `target` relative to `dir`, or undefined when it is not inside. */
export function insideRel(dir: string, target: string): string | undefined {
	const rel = path.relative(dir, target);
	if (rel === "") return ".";
	if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
	return rel.split(path.sep).join("/");
}

/**
 * realpath that tolerates a missing tail: the deepest existing ancestor is resolved and the rest
 * appended. A dangling symlink on the way is followed to where it points, since writing through it
 * would create the file there. Synchronous (fs-provider says why): the lookups are made at the
 * moment the caller acts on the answer, with no turn of the event loop between them.
 */
function resolveReal(abs: string, state: { hops: number }): string {
	try {
		return realpathNow(abs);
	} catch (err) {
		const code = errorCode(err);
		if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
	}
	const parent = path.dirname(abs);
	if (parent === abs) return abs;
	const st = lstatIfExistsNow(abs);
	if (st?.type === "symlink") {
		state.hops += 1;
		if (state.hops > MAX_SYMLINK_HOPS) throw Object.assign(new Error("symlink loop"), { code: "ELOOP" });
		const target = readlinkNow(abs);
		const parentReal = resolveReal(parent, state);
		return resolveReal(path.resolve(parentReal, target), state);
	}
	return path.join(resolveReal(parent, state), path.basename(abs));
}

function describeResolveError(input: string, err: unknown): Error {
	switch (errorCode(err)) {
		case "ELOOP":
			return new InvalidPathError(`path ${displayPath(input)} has too many levels of symbolic links`);
		case "EACCES":
			return new InvalidPathError(`path ${displayPath(input)} cannot be resolved: permission denied`);
		case "ENAMETOOLONG":
			return new InvalidPathError(`path ${displayPath(input, 80)} is too long`);
		default:
			return err instanceof Error ? err : new Error(String(err));
	}
}

/** A path as it may appear inside a one-line message: control characters escaped, length bounded. */
export function displayPath(p: string, maxChars = 200): string {
	const clipped = p.length > maxChars ? `${p.slice(0, maxChars)}…` : p;
	return /[\x00-\x1f\x7f]/.test(clipped) ? JSON.stringify(clipped) : clipped;
}
