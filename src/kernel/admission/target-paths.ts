/**
 * Where a shell write target lands: as written (`~` expanded, against each directory the command
 * may run in) and as its real path. A target that does not exist yet is resolved through its
 * nearest existing ancestor, so `link/new.txt` with `link` pointing out of the workspace lands
 * outside even before `new.txt` exists.
 */
import { posix } from "node:path";
import type { PathScope } from "./command-paths.js";
import type { ShellWord } from "./shell/shell-types.js";
import { canonicalPath } from "./workspace-path.js";

export interface TargetPlace {
	/** The absolute path as written. */
	absolute: string;
	/** The absolute path after following links in the part that exists; the written one when nothing resolves. */
	real: string;
	/** Workspace-relative, when the real path is inside the workspace. */
	relative?: string;
	/** Workspace-relative as written, when that is inside (a link may lead the real path out). */
	writtenRelative?: string;
	inside: boolean;
}

/** The real path of `absolute`, through its nearest existing ancestor; `absolute` itself when nothing resolves. */
export function realTarget(absolute: string, resolvePath: PathScope["resolvePath"]): string {
	if (!resolvePath) return absolute;
	let dir = absolute;
	const rest: string[] = [];
	for (;;) {
		const real = resolvePath(dir);
		if (real !== undefined) return rest.length === 0 ? real : posix.join(real, ...rest.reverse());
		const parent = posix.dirname(dir);
		if (parent === dir) return absolute;
		rest.push(posix.basename(dir));
		dir = parent;
	}
}

/**
 * Whether a target under /tmp is the sandbox's scratch: the sandbox shows a fresh, empty /tmp, so
 * a new file there vanishes with the command, while a path into a directory that exists on the
 * host's /tmp (a sibling of a workspace kept there, say) names something the command cannot reach.
 */
export function tmpScratch(absolute: string, resolvePath: PathScope["resolvePath"]): boolean {
	if (!absolute.startsWith("/tmp/")) return false;
	if (!resolvePath) return true;
	for (let dir = posix.dirname(absolute); dir !== "/tmp" && dir !== "/"; dir = posix.dirname(dir)) {
		if (resolvePath(dir) !== undefined) return false;
	}
	return resolvePath(absolute) === undefined;
}

/** The places a static target may land, one per directory the command may run in. */
export function targetPlaces(path: ShellWord, cwds: readonly string[], scope: PathScope): TargetPlace[] {
	return cwds.map((cwd) => {
		const written = canonicalPath(path.value, cwd, scope.home);
		const asWritten = canonicalPath(written.absolute, scope.workspace, scope.home);
		const real = realTarget(written.absolute, scope.resolvePath);
		const resolved = canonicalPath(real, scope.workspace, scope.home);
		const place: TargetPlace = { absolute: written.absolute, real, inside: asWritten.inside && resolved.inside };
		if (resolved.relative !== undefined) place.relative = resolved.relative;
		if (asWritten.relative !== undefined) place.writtenRelative = asWritten.relative;
		return place;
	});
}
