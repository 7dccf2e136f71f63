/**
 * Many processes on one state dir: `processes` real `warden run` processes at once, each a
 * scripted session of `calls` governed write_file calls in its own workspace, against the same
 * calls made by one process alone (the yardstick). Both include the CLI's start; calls per second
 * is all calls over the wall time from the first spawn to the last exit. Each store logs how long
 * its write transactions waited for the write lock and then held it (WARDEN_LOCK_WAIT_LOG).
 *
 * So that a ratio short of the goal says why, the children's CPU is measured too (Linux's
 * cutime/cstime of the reaped children, with how busy all cores were): CPU per call in one process
 * and in many, a process's own start (a run making no call), and the ceiling the cores allow at
 * the many-process CPU per call. Cores near fully busy: the miss is CPU; cores idle meanwhile:
 * it is waiting.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { stringify } from "yaml";
import { readLockWaitLog } from "../../store/lock-wait-log.js";
import type { ConcurrencyReport, ConcurrencyVariant } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { cpuSince, cpuSnapshot } from "./child-cpu.js";

export interface ConcurrencyBenchOptions {
	wardenBin: string;
	tempDir: string;
	processes: number;
	/** Governed calls per process. */
	calls: number;
	/** Runs of a process making no call, for its start cost (the median is reported). Default 3. */
	startRuns?: number;
	onProgress: (line: string) => void;
}

/** Cores at least this busy through the many-process run: the ratio is held by CPU, not by waiting. */
export const CPU_BOUND_BUSY = 0.9;
/** Of that busy time, at least this share the bench's own processes': else other work on the machine held it. */
export const OWN_SHARE = 0.7;

/** What held a variant: idle cores mean waiting; busy cores mostly ours mean CPU; busy cores mostly others' mean other work. */
export function verdict(v: ConcurrencyVariant, cores: number): ConcurrencyReport["heldBy"] {
	if (v.coresBusy === undefined || v.cpuUs === undefined) return undefined;
	if (v.coresBusy < CPU_BOUND_BUSY) return "waiting";
	const own = v.cpuUs / (v.wallUs * cores);
	return own >= OWN_SHARE * v.coresBusy ? "cpu" : "other work";
}

interface Measured {
	variant: ConcurrencyVariant;
	waitsUs: number[];
	holdsUs: number[];
}

export async function benchConcurrency(options: ConcurrencyBenchOptions): Promise<ConcurrencyReport> {
	const { processes, calls, onProgress } = options;
	if (!existsSync(options.wardenBin)) throw new BenchError(`concurrency: ${options.wardenBin} does not exist`);
	const base = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-concurrency-")));
	try {
		const startRuns = Math.max(1, options.startRuns ?? 3);
		onProgress(`concurrency: ${startRuns} run(s) making no call, ${calls} governed calls in 1 process, then in each of ${processes} processes at once`);
		const starts: ConcurrencyVariant[] = [];
		for (let i = 0; i < startRuns; i++) starts.push((await runVariant(options, join(base, `start${i}`), 1, 0)).variant);
		const single = await runVariant(options, join(base, "single"), 1, calls);
		const concurrent = await runVariant(options, join(base, "concurrent"), processes, calls);
		const waits = [...concurrent.waitsUs].sort((a, b) => a - b);
		const holds = [...concurrent.holdsUs].sort((a, b) => a - b);
		const cores = availableParallelism();
		const single_ = single.variant.cpuPerCallUs;
		const cpuPerCall = concurrent.variant.cpuPerCallUs;
		const ceilingPerSecond = cpuPerCall === undefined || cpuPerCall <= 0 ? undefined : (cores * 1e6) / cpuPerCall;
		// One process is one thread of work: at best it runs a core flat out, 1 / its CPU per call.
		const ceilingRatio = ceilingPerSecond === undefined || single_ === undefined ? undefined : ceilingPerSecond / (1e6 / single_);
		const heldBy = verdict(concurrent.variant, cores);
		return {
			processes,
			callsPerProcess: calls,
			cores,
			start: medianStart(starts),
			single: single.variant,
			concurrent: concurrent.variant,
			ratio: concurrent.variant.perSecond / single.variant.perSecond,
			...(ceilingPerSecond === undefined ? {} : { ceilingPerSecond }),
			...(ceilingRatio === undefined ? {} : { ceilingRatio }),
			...(heldBy === undefined ? {} : { heldBy }),
			lockWaits: waits.length,
			lockWaitsOver1ms: waits.filter((us) => us > 1_000).length,
			lockWaitP99Us: percentile(waits, 0.99),
			lockWaitMaxUs: waits[waits.length - 1] ?? 0,
			lockHoldMedianUs: percentile(holds, 0.5),
			lockHoldP99Us: percentile(holds, 0.99),
		};
	} finally {
		rmSync(base, { recursive: true, force: true });
	}
}

/** The nearest-rank percentile of sorted values; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
	if (sorted.length === 0) return 0;
	return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

/** The start run with the median wall time, CPU and all. */
function medianStart(runs: readonly ConcurrencyVariant[]): { wallUs: number; cpuUs?: number } {
	const sorted = [...runs].sort((a, b) => a.wallUs - b.wallUs);
	const mid = sorted[Math.floor((sorted.length - 1) / 2)]!;
	return { wallUs: mid.wallUs, ...(mid.cpuUs === undefined ? {} : { cpuUs: mid.cpuUs }) };
}

async function runVariant(options: ConcurrencyBenchOptions, dir: string, count: number, calls: number): Promise<Measured> {
	mkdirSync(dir, { recursive: true });
	const stateDir = join(dir, "state");
	const log = join(dir, "lock-waits.jsonl");
	const steps = [...Array.from({ length: calls }, (_, i) => ({ tool_calls: [{ name: "write_file", arguments: { path: `f${i}.txt`, content: `${i}\n` } }] })), { text: "done" }];
	const plan = join(dir, "plan.yaml");
	writeFileSync(plan, stringify({ steps }));
	const workspaces = Array.from({ length: count }, (_, i) => {
		const ws = join(dir, `ws${i}`);
		mkdirSync(ws);
		return ws;
	});
	const before = cpuSnapshot();
	const started = performance.now();
	await Promise.all(workspaces.map((ws) => runOne(options.wardenBin, ["run", "bench", "--model", `scripted:${plan}`, "--workspace", ws, "--state-dir", stateDir, "--mode", "full-access", "--max-steps", String(calls + 1)], log, dir)));
	const wallUs = (performance.now() - started) * 1000;
	const cpu = cpuSince(before, cpuSnapshot());
	const lock = readLockWaitLog(log);
	const total = count * calls;
	const variant: ConcurrencyVariant = {
		perSecond: total === 0 ? 0 : (total * 1e6) / wallUs,
		wallUs,
		...(cpu === undefined ? {} : { cpuUs: cpu.childrenUs, coresBusy: cpu.machineBusyFraction, ...(total === 0 ? {} : { cpuPerCallUs: cpu.childrenUs / total }) }),
	};
	return { variant, waitsUs: lock.waitsUs, holdsUs: lock.holdsUs };
}

function runOne(bin: string, args: string[], log: string, home: string): Promise<void> {
	return new Promise((resolve, reject) => {
		// WARDEN_HOME in the bench's own dir: no run can touch the user's state.
		const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, WARDEN_HOME: home, WARDEN_LOCK_WAIT_LOG: log }, stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
		});
		child.on("error", (error) => reject(new BenchError(`concurrency: cannot run node: ${error.message}`)));
		child.on("close", (code) => {
			if (code === 0) resolve();
			else reject(new BenchError(`concurrency: warden ${args[0]} exited ${code}: ${stderr.trim().split("\n")[0] ?? ""}`));
		});
	});
}
