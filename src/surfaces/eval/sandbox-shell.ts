/**
 * Shell commands for the baselines, inside bubblewrap: the whole filesystem read-only, the task's
 * own directory the only writable place (plus a private /tmp inside it), no capabilities, a clean
 * environment, $HOME set to the task's home. Without bubblewrap a baseline shell step is refused,
 * never run on the real machine.
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative } from "node:path";
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
 * The bwrap argument list. The private /tmp is bound before the task's directory so that a task
 * directory under /tmp stays visible; --uid/--gid, --cap-drop ALL and --clearenv matter when the
 * harness runs as root.
 */
export function bwrapArgs(dirs: SandboxDirs, command: string): string[] {
	return [
		"--ro-bind", "/", "/",
		"--bind", dirs.tmp, "/tmp",
		"--bind", dirs.root, dirs.root,
		"--dev", "/dev",
		"--proc", "/proc",
		"--unshare-all",
		"--share-net",
		"--die-with-parent",
		"--uid", "1000",
		"--gid", "1000",
		"--cap-drop", "ALL",
		"--clearenv",
		"--setenv", "HOME", dirs.home,
		"--setenv", "PATH", SANDBOX_PATH,
		"--chdir", dirs.workspace,
		"bash", "-c", command,
	];
}

/** bwrap needs the task directory's mount point inside the private /tmp when the task lives under /tmp. */
async function prepareMountPoint(dirs: SandboxDirs): Promise<void> {
	const rel = relative("/tmp", dirs.root);
	if (rel !== "" && !rel.startsWith("..")) await mkdir(join(dirs.tmp, rel), { recursive: true });
}

export function runSandboxed(bwrap: string, dirs: SandboxDirs, command: string, timeoutMs = SANDBOX_TIMEOUT_MS): Promise<ShellOutcome> {
	return prepareMountPoint(dirs).then(
		() =>
			new Promise<ShellOutcome>((resolve, reject) => {
				const child = spawn(bwrap, bwrapArgs(dirs, command), { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { PATH: SANDBOX_PATH } });
				const out: Buffer[] = [];
				const err: Buffer[] = [];
				let size = 0;
				const keep = (into: Buffer[]) => (chunk: Buffer) => {
					if (size < MAX_OUTPUT_BYTES) into.push(chunk.subarray(0, MAX_OUTPUT_BYTES - size));
					size += chunk.length;
				};
				child.stdout.on("data", keep(out));
				child.stderr.on("data", keep(err));
				let timedOut = false;
				const killGroup = () => {
					try {
						if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
					} catch {
						// The group has already gone.
					}
				};
				const timer = setTimeout(() => {
					timedOut = true;
					killGroup();
				}, timeoutMs);
				child.on("error", (error) => {
					clearTimeout(timer);
					reject(error);
				});
				child.on("close", (code) => {
					clearTimeout(timer);
					killGroup();
					resolve({ exitCode: code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), timedOut });
				});
			}),
	);
}

async function findOnPath(name: string): Promise<string | undefined> {
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
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

/** Finds bwrap and proves it works here (user namespaces can be disabled) by writing a file through it. */
export async function probeSandbox(): Promise<SandboxInfo> {
	const bwrap = await findOnPath("bwrap");
	if (bwrap === undefined) return { available: false, detail: "bwrap is not on PATH" };
	const root = await mkdtemp(join(tmpdir(), "warden-eval-probe-"));
	try {
		const dirs = { root, workspace: join(root, "workspace"), home: join(root, "home"), tmp: join(root, "tmp") };
		for (const dir of [dirs.workspace, dirs.home, dirs.tmp]) await mkdir(dir);
		const outcome = await runSandboxed(bwrap, dirs, "echo ok > probe && cat probe", 5_000);
		if (outcome.exitCode === 0 && outcome.stdout.trim() === "ok") return { available: true, detail: bwrap };
		const why = (outcome.stderr.trim().split("\n")[0] ?? "") || `exit ${outcome.exitCode}`;
		return { available: false, detail: `${bwrap} does not work here: ${why}` };
	} catch (error) {
		return { available: false, detail: `${bwrap} could not be started: ${error instanceof Error ? error.message : String(error)}` };
	} finally {
		await rm(root, { recursive: true, force: true });
	}
}
