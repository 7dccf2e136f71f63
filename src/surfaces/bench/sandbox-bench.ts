/**
 * What isolation costs per call. `true` through runShell inside bubblewrap and under the Landlock
 * helper (workspace-write, no network) against the same `true` through runShell unwrapped; and one JIT tool call in a fresh
 * QuickJS runtime and context against spawning `node -e` for the same sum, which is what a tool
 * without the JIT would pay.
 *
 * The wasm module is compiled once per process, before any JIT call can run: its first load is
 * timed and reported on its own, and kept out of the per-call figures, because a long-lived
 * runtime pays it once. Transpiling the tool is not timed either: the kernel does it when the tool
 * is compiled, not on each call.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DEFAULT_JIT_LIMITS } from "../../kernel/kernel-jit.js";
import { runIsolated } from "../../providers/quickjs/run-isolated.js";
import { bwrapInvocation } from "../../providers/sandbox/bwrap-invocation.js";
import { type PreparedSandbox, prepareSandbox } from "../../providers/sandbox/prepare-sandbox.js";
import { probeSandbox, type SandboxProbe } from "../../providers/sandbox/sandbox-probe.js";
import { runShell } from "../../providers/shell-provider.js";
import { transpileTool } from "../../providers/transpile.js";
import type { JitColdStartReport, SandboxSpawnReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { callTiming } from "./call-timing.js";

export interface SandboxBenchOptions {
	runs: number;
	warmupRuns: number;
	/** Where the temporary workspace is made (and removed afterwards). */
	tempDir: string;
	onProgress: (line: string) => void;
	/** Whether bwrap works here; default the process-wide probe. */
	probe?: () => Promise<SandboxProbe>;
	/** Whether Landlock works here; default the process-wide probe. */
	landlockProbe?: () => Promise<SandboxProbe>;
}

export interface JitBenchOptions {
	runs: number;
	warmupRuns: number;
	onProgress: (line: string) => void;
}

const SHELL_ENV = { PATH: "/usr/bin:/bin" };
const SHELL_TIMEOUT_MS = 10_000;
const SPAWN_TIMEOUT_MS = 60_000;

const TOOL_SOURCE = "export default async function (input: { a: number; b: number }) {\n\treturn input.a + input.b;\n}\n";
/** The yardstick's program: the same sum, its input as JSON in argv the way the JIT gets it as JSON. */
const NODE_SUM = "const input = JSON.parse(process.argv[1]); process.stdout.write(JSON.stringify(input.a + input.b));";

/** One `true` through runShell, timed; a run that did not exit 0 is an error, not a fast sample. */
async function timedTrue(name: string, cwd: string, wrap: { program: string; args: readonly string[]; env?: NodeJS.ProcessEnv } | undefined): Promise<number> {
	const started = performance.now();
	const ran = await runShell({ command: "true", cwd, env: wrap?.env ?? SHELL_ENV, timeoutMs: SHELL_TIMEOUT_MS, maxOutputBytes: 4096, wrap });
	const elapsedUs = (performance.now() - started) * 1000;
	if (ran.exitCode !== 0) throw new BenchError(`sandbox (${name}): true exited ${ran.exitCode ?? ran.signal}${ran.timedOut ? " (timed out)" : ""}: ${ran.stderr.trim().split("\n")[0] ?? ""}`);
	return elapsedUs;
}

export async function benchSandboxSpawn(options: SandboxBenchOptions): Promise<SandboxSpawnReport> {
	const { runs, warmupRuns, onProgress } = options;
	const probe = await (options.probe ?? (() => probeSandbox("bwrap")))();
	const landlockProbe = await (options.landlockProbe ?? (() => probeSandbox("landlock")))();
	const workspace = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-sandbox-")));
	// Made once, as a long-lived sandbox would reuse it; the per-command stand-ins and temp dir are not what is timed.
	let landlock: PreparedSandbox | undefined;
	try {
		const profile = { name: "workspace-write" as const, workspace, network: false };
		const wrap = probe.available ? bwrapInvocation(profile, "true", SHELL_ENV, probe.program) : undefined;
		if (landlockProbe.available) landlock = await prepareSandbox({ provider: "landlock", program: landlockProbe.program }, profile, "true", SHELL_ENV);
		const variants = ["plain", ...(wrap ? ["in bwrap"] : []), ...(landlock ? ["under Landlock"] : [])].join(", ");
		onProgress(`sandbox: ${warmupRuns} warm-up and ${runs} measured runs of true, ${variants}, interleaved`);
		const plain: number[] = [];
		const sandboxed: number[] = [];
		const landlocked: number[] = [];
		for (let r = 0; r < warmupRuns + runs; r++) {
			const plainUs = await timedTrue("plain", workspace, undefined);
			const sandboxedUs = wrap ? await timedTrue("bwrap", workspace, wrap) : undefined;
			const landlockUs = landlock ? await timedTrue("landlock", workspace, landlock) : undefined;
			if (r < warmupRuns) continue;
			plain.push(plainUs);
			if (sandboxedUs !== undefined) sandboxed.push(sandboxedUs);
			if (landlockUs !== undefined) landlocked.push(landlockUs);
		}
		const report: SandboxSpawnReport = { runs, warmupRuns, profile: "workspace-write" as const, network: false as const, plain: callTiming(plain) };
		if (probe.available) {
			report.sandboxed = callTiming(sandboxed);
			report.ratio = report.sandboxed.medianUs / report.plain.medianUs;
		} else report.notRun = probe.reason;
		if (landlockProbe.available) {
			report.landlock = callTiming(landlocked);
			report.landlockRatio = report.landlock.medianUs / report.plain.medianUs;
		} else report.landlockNotRun = landlockProbe.reason;
		return report;
	} finally {
		await landlock?.cleanup();
		rmSync(workspace, { recursive: true, force: true });
	}
}

/** One JIT call in a fresh runtime and context, checked, timed in microseconds. */
async function timedJit(code: string, a: number, b: number): Promise<number> {
	const started = performance.now();
	const outcome = await runIsolated({
		code,
		input: { a, b },
		...DEFAULT_JIT_LIMITS,
		syscall: async (name) => {
			throw new Error(`${name}: the benchmark tool makes no syscalls`);
		},
	});
	const elapsedUs = (performance.now() - started) * 1000;
	if (!outcome.ok) throw new BenchError(`jit: the tool failed: ${outcome.error}`);
	if (outcome.value !== a + b) throw new BenchError(`jit: the tool returned ${JSON.stringify(outcome.value)}, expected ${a + b}`);
	return elapsedUs;
}

function timedNodeSpawn(a: number, b: number): number {
	const started = performance.now();
	const child = spawnSync(process.execPath, ["-e", NODE_SUM, JSON.stringify({ a, b })], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: SPAWN_TIMEOUT_MS });
	const elapsedUs = (performance.now() - started) * 1000;
	if (child.error) throw new BenchError(`jit yardstick: cannot run node: ${child.error.message}`);
	if (child.status !== 0 || child.stdout !== String(a + b)) {
		throw new BenchError(`jit yardstick: node -e exited ${child.status ?? child.signal} printing ${JSON.stringify(child.stdout.slice(0, 80))}, expected ${a + b}`);
	}
	return elapsedUs;
}

export async function benchJitColdStart(options: JitBenchOptions): Promise<JitColdStartReport> {
	const { runs, warmupRuns, onProgress } = options;
	const { code } = transpileTool(TOOL_SOURCE);
	onProgress(`jit: first call loads the QuickJS wasm module; then ${warmupRuns} warm-up and ${runs} measured cold calls and node -e spawns, interleaved`);
	// When something earlier in this process already loaded the module, this is one more cold call.
	const firstCallUs = await timedJit(code, 1, 1);
	const jit: number[] = [];
	const spawn: number[] = [];
	for (let r = 0; r < warmupRuns + runs; r++) {
		// Different inputs each run, so neither side can hand back a remembered answer.
		const jitUs = await timedJit(code, r, r + 1);
		const spawnUs = timedNodeSpawn(r, r + 1);
		if (r < warmupRuns) continue;
		jit.push(jitUs);
		spawn.push(spawnUs);
	}
	const jitTiming = callTiming(jit);
	const spawnTiming = callTiming(spawn);
	return {
		runs,
		warmupRuns,
		limits: { ...DEFAULT_JIT_LIMITS },
		firstCallUs,
		jit: jitTiming,
		spawn: spawnTiming,
		speedup: spawnTiming.medianUs / jitTiming.medianUs,
	};
}
