/**
 * Everything one sandboxed command needs, made just before it runs and undone after it ends: the
 * provider's command line and environment, bubblewrap's read-only stand-ins for absent protected
 * paths, Landlock's private temp dir; and afterwards the check of what the command created among
 * the protected paths.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BWRAP_ENV, bwrapInvocation } from "./bwrap-invocation.js";
import { landlockInvocation } from "./landlock-invocation.js";
import { acquireStandIns } from "./stand-ins.js";
import { protectedLayout } from "./protected-layout.js";
import { SCAN_MAX_DEPTH, SCAN_MAX_DIRS, scanProtected } from "./protected-scan.js";
import { type ProtectedSnapshot, scannedRepositories, snapshotProtected, sweepProtected } from "./protected-sweep.js";
import type { SandboxInvocation, SandboxProfile, SandboxProviderName } from "./sandbox-profile.js";

export interface PreparedSandbox extends SandboxInvocation {
	/** The environment to spawn `program` with. */
	env: NodeJS.ProcessEnv;
	/** Removes what was made for this command and checks what it created among the protected paths; safe to call more than once. */
	cleanup: () => Promise<void>;
	/** After cleanup: each protected path the command created that was put aside, with why (protected-sweep.ts). */
	refused: string[];
	/** Set when the walk for protected paths stopped at its bounds, saying which: paths beyond them were neither held nor checked. */
	unscanned?: string;
}

export interface SandboxProgram {
	provider: SandboxProviderName;
	/** The bwrap binary or the landlock-exec helper. */
	program: string;
}

export async function prepareSandbox(sandbox: SandboxProgram, profile: SandboxProfile, command: string, env: NodeJS.ProcessEnv): Promise<PreparedSandbox> {
	const writable = profile.name === "workspace-write";
	// One walk finds the protected paths at every depth and the nested repositories whose absent roots get stand-ins.
	const scan = writable && profile.protectedMatch ? scanProtected(profile.workspace, profile.protectedMatch) : undefined;
	const repositories = scan ? scannedRepositories(scan) : undefined;
	const layout = writable ? protectedLayout(profile.workspace, profile.protectedRoots ?? [], profile.protect ?? [], repositories) : undefined;
	const refused: string[] = [];
	const unscanned = scan && !scan.complete ? `the walk for protected paths stopped at ${SCAN_MAX_DEPTH} levels or ${SCAN_MAX_DIRS} folders` : undefined;
	const release = layout && sandbox.provider === "bwrap" ? acquireStandIns(layout.absent) : () => {};
	let snapshot: ProtectedSnapshot | undefined;
	const sweep = () => {
		if (snapshot === undefined) return;
		const taken = snapshot;
		snapshot = undefined;
		refused.push(...sweepProtected(taken, (layout?.absent ?? []).filter((a) => a.writable).map((a) => a.path)));
	};
	try {
		// The stand-ins just made are protected paths the walk after will find: they count as there before.
		const standIns = sandbox.provider === "bwrap" ? (layout?.absent ?? []).map((a) => a.path) : [];
		snapshot = scan && profile.protectedMatch ? snapshotProtected(profile.workspace, profile.protectedMatch, scan, standIns) : undefined;
		if (sandbox.provider === "bwrap") {
			const { program, args } = bwrapInvocation(profile, command, env, sandbox.program, layout, snapshot?.scan);
			const cleanup = async () => {
				try {
					sweep();
				} finally {
					release();
				}
			};
			return { program, args, env: BWRAP_ENV, cleanup, refused, ...(unscanned ? { unscanned } : {}) };
		}
	} catch (err) {
		release();
		throw err;
	}
	const own = profile.tmp === undefined;
	const tmp = profile.tmp ?? (await mkdtemp(join(tmpdir(), "warden-tmp-")));
	try {
		const { program, args, env: commandEnv } = landlockInvocation(profile, command, env, sandbox.program, tmp, layout, snapshot?.scan);
		let done = false;
		const cleanup = async () => {
			sweep();
			if (done || !own) return;
			done = true;
			await rm(tmp, { recursive: true, force: true });
		};
		return { program, args, env: commandEnv, cleanup, refused, ...(unscanned ? { unscanned } : {}) };
	} catch (err) {
		if (own) await rm(tmp, { recursive: true, force: true });
		throw err;
	}
}
