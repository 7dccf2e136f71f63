/**
 * The landlock-exec command line for one sandboxed command: the bubblewrap profile, expressed in
 * Landlock's terms. Landlock rules only ever allow, each for a whole hierarchy, so "the workspace
 * minus its protected paths" is spelled as a rule for every entry beside them: each existing entry
 * of the workspace and of each directory on the way to a protected path gets write rights, and
 * those directories themselves get none. The price: no new name can be made directly in such a
 * directory (the workspace's top, `.git`, `.vscode` …), and an existing file there can be
 * rewritten in place but not removed or renamed. That is also what holds a protected path whole:
 * renaming or removing an entry needs REMOVE_* (and REFER to move it elsewhere) on its parent, and
 * renaming something over it MAKE_* there, so with no rule on any directory between the workspace
 * and a protected path, neither it nor a parent of it can be moved aside and rebuilt. What Landlock
 * cannot express is the converse, a writable `.git` minus its hooks (a rule for a directory covers
 * everything beneath it): git in the workspace's own repository fails closed here, where bubblewrap
 * lets it run. A private temp dir (TMPDIR) and the usual device
 * files are writable; everything else is read-only. Credential stores under $HOME are hidden the
 * same way in reverse: reads are allowed on every entry beside them.
 */
import { type Dirent, existsSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { CREDENTIAL_STORES } from "./bwrap-invocation.js";
import { isInside, type ProtectedLayout, protectedLayout } from "./protected-layout.js";
import type { ProtectedScan } from "./protected-scan.js";
import type { SandboxInvocation, SandboxProfile } from "./sandbox-profile.js";

/** Device files a command may write to: the sinks and sources every shell script uses. */
const WRITABLE_DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

export interface LandlockInvocation extends SandboxInvocation {
	/** The command's environment, TMPDIR pointing at its private temp dir. */
	env: NodeJS.ProcessEnv;
}

function entries(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}

/** Each directory from `top` down to the parent of each path in `carved` (those inside `top`). */
function ancestors(top: string, carved: readonly string[]): Set<string> {
	const out = new Set<string>();
	for (const path of carved) {
		if (!isInside(path, top) || path === top) continue;
		for (let dir = dirname(path); isInside(dir, top); dir = dirname(dir)) {
			out.add(dir);
			if (dir === top) break;
		}
	}
	return out;
}

/**
 * The hierarchies that cover `top` except `carved` and the directories that lead to them: every
 * other entry of those directories. Links are left out (what they lead to has its own entry, or lies
 * outside and gets no rule).
 */
export function coverExcept(top: string, carved: readonly string[]): string[] {
	const inside = carved.filter((p) => isInside(p, top));
	if (inside.includes(top)) return [];
	if (inside.length === 0) return [top];
	const dirs = ancestors(top, inside);
	const skip = new Set([...inside, ...dirs]);
	const out: string[] = [];
	for (const dir of dirs) {
		for (const e of entries(dir)) {
			const path = join(dir, e.name);
			if (!skip.has(path) && !e.isSymbolicLink()) out.push(path);
		}
	}
	return out.sort();
}

/** The credential stores that exist under home, as real paths. */
function credentialStores(home: string | undefined): string[] {
	if (home === undefined) return [];
	const out: string[] = [];
	for (const store of CREDENTIAL_STORES) {
		const path = join(home, store);
		if (!existsSync(path)) continue;
		try {
			out.push(realpathSync(path));
		} catch {
			// Gone meanwhile.
		}
	}
	return out;
}

export function landlockInvocation(
	profile: SandboxProfile,
	command: string,
	env: NodeJS.ProcessEnv,
	program: string,
	tmp: string,
	layout?: ProtectedLayout,
	scan?: ProtectedScan,
): LandlockInvocation {
	const ws = profile.workspace;
	const cwd = profile.cwd ?? ws;
	if (!isInside(cwd, ws)) throw new RangeError(`sandbox cwd ${cwd} is outside the workspace ${ws}`);
	const args: string[] = [];
	if (profile.name === "workspace-write") {
		const found = layout ?? protectedLayout(ws, profile.protectedRoots ?? [], profile.protect ?? []);
		// Each protected path found at depth too: it gets no rule, and neither do the directories on the way to it, so none can be renamed.
		const carved = [...found.existing, ...found.absent.map((a) => a.path), ...(scan?.found ?? []).map((f) => join(ws, f.rel))];
		for (const path of coverExcept(ws, carved)) args.push("--write", path);
	}
	args.push("--write", tmp);
	for (const dev of WRITABLE_DEVICES) if (existsSync(dev)) args.push("--write", dev);
	const hidden = credentialStores(profile.home);
	if (hidden.length > 0) {
		for (const path of coverExcept("/", hidden)) args.push("--read", path);
		// Names may be listed everywhere, so a glob over $HOME still works; the stores' files stay unreadable.
		args.push("--list", "/");
	}
	if (!profile.network) args.push("--no-network");
	args.push("--", "bash", "-c", command);
	return { program, args, env: { ...env, TMPDIR: tmp } };
}
