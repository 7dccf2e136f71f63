/**
 * The bubblewrap command line for one sandboxed command. The whole filesystem is visible
 * read-only; the workspace is the one writable place (for workspace-write), minus what would let
 * a command outlive its call: git hooks and config (run later by the user's own git) and Warden's
 * own state and config, each held whole (bwrap-mounts.ts: its parents cannot be renamed either). /tmp is private, every namespace is new (the network one too unless the
 * profile shares it), capabilities are dropped and the uid is not root whoever runs Warden.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { type BwrapMounts, bwrapMountArgs } from "./bwrap-mounts.js";
import { isInside, type ProtectedLayout, protectedLayout } from "./protected-layout.js";
import type { ProtectedScan } from "./protected-scan.js";
import type { SandboxInvocation, SandboxProfile } from "./sandbox-profile.js";

/** The uid/gid a command runs as inside: never root, so a mis-set permission on the host is not the only guard. */
export const SANDBOX_UID = "1000";

/**
 * Credential stores under $HOME. The root filesystem is read-only, so the command could still read
 * them; an empty tmpfs over each means a command cannot even see them. Defense in depth: the flow
 * plane already treats what it names as secret, but a program can open files it does not name.
 */
export const CREDENTIAL_STORES = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker", ".kube"];

/**
 * What to bind inside the workspace: each protected path that exists (as its real path) and each
 * found at depth by the scan, read-only; a writable stand-in and each protected directory that is
 * not protected whole (`.git`), pinned. The absent ones are there only when the caller made
 * stand-ins for them (prepareSandbox).
 */
function protectedMounts(profile: SandboxProfile, layout: ProtectedLayout | undefined, scan: ProtectedScan | undefined): BwrapMounts {
	const found = layout ?? protectedLayout(profile.workspace, profile.protectedRoots ?? [], profile.protect ?? []);
	const readOnly = [...found.existing, ...found.absent.filter((a) => !a.writable).map((a) => a.path)];
	const pinned = found.absent.filter((a) => a.writable).map((a) => a.path);
	for (const entry of scan?.found ?? []) {
		const abs = join(profile.workspace, entry.rel);
		if (entry.kind === "dir" && !entry.whole) pinned.push(abs);
		else if (entry.kind === "link") {
			// The link's own name is held by pinning its directory; what it leads to, when that is in the workspace, is kept read-only.
			pinned.push(dirname(abs));
			try {
				readOnly.push(realpathSync(abs));
			} catch {
				// Dangling: nothing there to bind.
			}
		} else readOnly.push(abs);
	}
	return { readOnly: [...new Set(readOnly)].filter((p) => existsSync(p)), pinned: pinned.filter((p) => existsSync(p)) };
}

/** The environment bwrap itself runs with; the command's own is passed with --setenv after --clearenv. */
export const BWRAP_ENV: NodeJS.ProcessEnv = { PATH: "/usr/local/bin:/usr/bin:/bin" };

export function bwrapInvocation(
	profile: SandboxProfile,
	command: string,
	env: NodeJS.ProcessEnv,
	program = "bwrap",
	layout?: ProtectedLayout,
	scan?: ProtectedScan,
): SandboxInvocation {
	const ws = profile.workspace;
	const cwd = profile.cwd ?? ws;
	if (!isInside(cwd, ws)) throw new RangeError(`sandbox cwd ${cwd} is outside the workspace ${ws}`);
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
	// /tmp comes before the workspace: bwrap then makes the workspace's mount point inside the private /tmp when it lives there.
	if (profile.tmp !== undefined) args.push("--bind", profile.tmp, "/tmp");
	else args.push("--tmpfs", "/tmp");
	for (const path of profile.readable ?? []) if (existsSync(path)) args.push("--ro-bind", path, path);
	args.push(profile.name === "workspace-write" ? "--bind" : "--ro-bind", ws, ws);
	if (profile.name === "workspace-write") args.push(...bwrapMountArgs(ws, protectedMounts(profile, layout, scan)));
	if (profile.home !== undefined) {
		for (const store of CREDENTIAL_STORES) {
			const path = join(profile.home, store);
			if (existsSync(path)) args.push("--tmpfs", path);
		}
	}
	args.push("--unshare-all");
	if (profile.network) args.push("--share-net");
	// --new-session: no TIOCSTI into the caller's terminal. The pid namespace dies with bwrap, so killing bwrap ends the whole tree.
	args.push("--die-with-parent", "--new-session");
	// Always, root or not: as root, bwrap would otherwise keep uid 0 and its capabilities inside.
	args.push("--uid", SANDBOX_UID, "--gid", SANDBOX_UID, "--cap-drop", "ALL");
	args.push("--clearenv");
	for (const [name, value] of Object.entries(env)) {
		if (value !== undefined && name !== "" && !name.includes("=")) args.push("--setenv", name, value);
	}
	args.push("--chdir", cwd, "bash", "-c", command);
	return { program, args };
}
