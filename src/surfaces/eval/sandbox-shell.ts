/**
 * Shell commands for the baselines, inside bubblewrap: the whole filesystem read-only, the task's
 * own directory the only writable place (plus a private /tmp inside it), no capabilities, a clean
 * environment, $HOME set to the task's home. Without bubblewrap a baseline shell step is refused,
 * never run on the real machine. The bubblewrap command line, the run and the probe are the
 * shell provider's (src/providers/sandbox), the same ones the kernel's shell primitive uses.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { bwrapInvocation } from "../../providers/sandbox/bwrap-invocation.js";
import { probeSandbox as probeProvider } from "../../providers/sandbox/sandbox-probe.js";
import { runShell } from "../../providers/shell-provider.js";
import type { TaskDirs } from "./fixture.js";

export interface SandboxInfo {
	available: boolean;
	/** The bwrap binary, or why there is none that works. */
	detail: string;
}

export interface ShellOutcome {
	exitCode: number | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
}

export const SANDBOX_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 1_000_000;
/** The running node's directory comes first: tasks may use `node -e`, and CI installs node outside /usr. */
const SANDBOX_PATH = [...new Set([dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"])].join(":");

type SandboxDirs = Pick<TaskDirs, "root" | "workspace" | "home" | "tmp">;

/**
 * The bwrap argument list: the task's whole directory (workspace, home, tmp) is the writable
 * "workspace", its tmp shown as /tmp, the network shared (baselines stand for unguarded agents; the
 * sink they may reach is local). Credential stores are not hidden: the task's home is a fixture.
 */
export function bwrapArgs(dirs: SandboxDirs, command: string): string[] {
	const profile = { name: "workspace-write" as const, workspace: dirs.root, cwd: dirs.workspace, tmp: dirs.tmp, network: true };
	return bwrapInvocation(profile, command, { HOME: dirs.home, PATH: SANDBOX_PATH }).args;
}

/** bwrap needs the task directory's mount point inside the private /tmp when the task lives under /tmp. */
async function prepareMountPoint(dirs: SandboxDirs): Promise<void> {
	const rel = relative("/tmp", dirs.root);
	if (rel !== "" && !rel.startsWith("..")) await mkdir(join(dirs.tmp, rel), { recursive: true });
}

export async function runSandboxed(bwrap: string, dirs: SandboxDirs, command: string, timeoutMs = SANDBOX_TIMEOUT_MS): Promise<ShellOutcome> {
	await prepareMountPoint(dirs);
	const wrap = { program: bwrap, args: bwrapArgs(dirs, command) };
	const ran = await runShell({ command, cwd: dirs.workspace, env: { PATH: SANDBOX_PATH }, timeoutMs, maxOutputBytes: MAX_OUTPUT_BYTES, wrap });
	return { exitCode: ran.exitCode, stdout: ran.stdout, stderr: ran.stderr, timedOut: ran.timedOut };
}

/** Finds bwrap and proves it works here (user namespaces can be disabled); once per process. The baselines always use bubblewrap. */
export async function probeSandbox(): Promise<SandboxInfo> {
	const probe = await probeProvider("bwrap");
	return probe.available ? { available: true, detail: probe.program } : { available: false, detail: probe.reason };
}
