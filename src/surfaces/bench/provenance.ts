/**
 * Where a report's figures came from: the commit of the checkout that was measured, the Node
 * version, the machine's cores and its load average before and after the run. A figure without
 * these cannot be checked on a second machine (issue 32: a README figure nobody could reproduce).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { arch, cpus, loadavg, platform } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchEnvironment, CommitProvenance, LoadAverage } from "./bench-types.js";
import { type CpuSnapshot, cpuSince, cpuSnapshot } from "./child-cpu.js";

const GIT_TIMEOUT_MS = 5000;

/** This file sits at src/surfaces/bench/ or dist/surfaces/bench/; the checkout is three levels up from either. */
export function checkoutRoot(): string {
	return fileURLToPath(new URL("../../..", import.meta.url));
}

function git(root: string, args: string[]): { ok: true; stdout: string } | { ok: false; why: string } {
	const run = spawnSync("git", ["-C", root, ...args], { encoding: "utf8", timeout: GIT_TIMEOUT_MS });
	if (run.error) return { ok: false, why: `git could not run (${run.error.message})` };
	if (run.status !== 0) return { ok: false, why: `git ${args[0]} failed: ${(run.stderr.trim().split("\n")[0] ?? "").slice(0, 200)}` };
	return { ok: true, stdout: run.stdout };
}

/** The commit checked out at `root`, and whether tracked files differ from it (untracked files are not code that ran). */
export function commitOf(root: string): CommitProvenance {
	// Checked here, not left to git: an installed package inside someone's repository would report that repository's commit.
	if (!existsSync(join(root, ".git"))) return { commit: null, why: `${root} is not a git checkout` };
	const head = git(root, ["rev-parse", "HEAD"]);
	if (!head.ok) return { commit: null, why: head.why };
	const status = git(root, ["status", "--porcelain", "--untracked-files=no"]);
	if (!status.ok) return { commit: head.stdout.trim(), why: status.why };
	return { commit: head.stdout.trim(), dirty: status.stdout.trim() !== "" };
}

export function loadAverage(): LoadAverage {
	const [one, five, fifteen] = loadavg();
	return { one: one ?? 0, five: five ?? 0, fifteen: fifteen ?? 0 };
}

/** The environment as it is when the run starts; `after` completes it when the run ends. */
export function environmentBefore(root: string = checkoutRoot()): { before: Omit<BenchEnvironment, "loadAfter" | "coresBusy">; cpu: CpuSnapshot | undefined } {
	const cores = cpus();
	return {
		before: {
			node: process.version,
			platform: platform(),
			arch: arch(),
			cpus: cores.length,
			cpuModel: cores[0]?.model.trim() ?? "unknown",
			source: commitOf(root),
			loadBefore: loadAverage(),
		},
		cpu: cpuSnapshot(),
	};
}

export function environmentAfter(started: ReturnType<typeof environmentBefore>): BenchEnvironment {
	const busy = cpuSince(started.cpu, cpuSnapshot());
	return { ...started.before, loadAfter: loadAverage(), ...(busy === undefined ? {} : { coresBusy: busy.machineBusyFraction }) };
}
