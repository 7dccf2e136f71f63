/**
 * Everything one sandboxed command needs, made just before it runs and undone after it ends: the
 * provider's command line and environment, bubblewrap's read-only stand-ins for absent protected
 * paths, Landlock's private temp dir.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BWRAP_ENV, bwrapInvocation } from "./bwrap-invocation.js";
import { landlockInvocation } from "./landlock-invocation.js";
import { acquireStandIns } from "./stand-ins.js";
import { protectedLayout } from "./protected-layout.js";
import type { SandboxInvocation, SandboxProfile, SandboxProviderName } from "./sandbox-profile.js";

export interface PreparedSandbox extends SandboxInvocation {
	/** The environment to spawn `program` with. */
	env: NodeJS.ProcessEnv;
	/** Removes what was made for this command; safe to call more than once. */
	cleanup: () => Promise<void>;
}

export interface SandboxProgram {
	provider: SandboxProviderName;
	/** The bwrap binary or the landlock-exec helper. */
	program: string;
}

export async function prepareSandbox(sandbox: SandboxProgram, profile: SandboxProfile, command: string, env: NodeJS.ProcessEnv): Promise<PreparedSandbox> {
	const writable = profile.name === "workspace-write";
	const layout = writable ? protectedLayout(profile.workspace, profile.protectedRoots ?? [], profile.protect ?? []) : undefined;
	if (sandbox.provider === "bwrap") {
		const release = layout ? acquireStandIns(layout.absent) : () => {};
		try {
			const { program, args } = bwrapInvocation(profile, command, env, sandbox.program, layout);
			return { program, args, env: BWRAP_ENV, cleanup: async () => release() };
		} catch (err) {
			release();
			throw err;
		}
	}
	const own = profile.tmp === undefined;
	const tmp = profile.tmp ?? (await mkdtemp(join(tmpdir(), "warden-tmp-")));
	try {
		const { program, args, env: commandEnv } = landlockInvocation(profile, command, env, sandbox.program, tmp, layout);
		let done = false;
		const cleanup = async () => {
			if (done || !own) return;
			done = true;
			await rm(tmp, { recursive: true, force: true });
		};
		return { program, args, env: commandEnv, cleanup };
	} catch (err) {
		if (own) await rm(tmp, { recursive: true, force: true });
		throw err;
	}
}
