/**
 * Is there a bubblewrap that works here? Found on PATH and proven once per process by running a
 * command through it that writes in a scratch workspace (user namespaces can be disabled, bwrap
 * can lack its setuid bit): a binary that exists is not enough.
 */
import { constants } from "node:fs";
import { access, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { runShell } from "../shell-provider.js";
import { bwrapInvocation } from "./bwrap-invocation.js";

export type SandboxProbe = { available: true; bwrap: string } | { available: false; reason: string };

const PROBE_TIMEOUT_MS = 5_000;
let cached: Promise<SandboxProbe> | undefined;

async function findOnPath(name: string, path: string | undefined): Promise<string | undefined> {
	for (const dir of (path ?? "").split(delimiter)) {
		if (dir === "") continue;
		const candidate = join(dir, name);
		try {
			await access(candidate, constants.X_OK);
			return candidate;
		} catch {
			// Not in this directory.
		}
	}
	return undefined;
}

/** Runs the proof; `probeSandbox` caches it. */
export async function probeSandboxUncached(path = process.env.PATH): Promise<SandboxProbe> {
	const bwrap = await findOnPath("bwrap", path);
	if (bwrap === undefined) return { available: false, reason: "bubblewrap (bwrap) is not installed" };
	let scratch: string | undefined;
	try {
		scratch = await realpath(await mkdtemp(join(tmpdir(), "warden-sandbox-probe-")));
		const { program, args } = bwrapInvocation({ name: "workspace-write", workspace: scratch, network: false }, "echo ok > probe && cat probe", { PATH: "/usr/bin:/bin" }, bwrap);
		const ran = await runShell({ command: "", cwd: scratch, env: { PATH: "/usr/bin:/bin" }, timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096, wrap: { program, args } });
		if (ran.exitCode === 0 && ran.stdout.trim() === "ok") return { available: true, bwrap };
		const why = ran.timedOut ? "it timed out" : (ran.stderr.trim().split("\n")[0] ?? "") || `exit ${ran.exitCode}`;
		return { available: false, reason: `${bwrap} does not work here: ${why}` };
	} catch (err) {
		return { available: false, reason: `${bwrap} could not be started: ${err instanceof Error ? err.message : String(err)}` };
	} finally {
		if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
	}
}

/** The probe's answer, proven once per process. */
export function probeSandbox(): Promise<SandboxProbe> {
	cached ??= probeSandboxUncached();
	return cached;
}
