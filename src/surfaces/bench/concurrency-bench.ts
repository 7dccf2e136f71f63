/**
 * Many processes on one state dir: `processes` real `warden run` processes at once, each a
 * scripted session of `calls` governed write_file calls in its own workspace, against the same
 * calls made by one process alone (the yardstick). Both include the CLI's start; calls per second
 * is all calls over the wall time from the first spawn to the last exit. Each store logs how long
 * its write transactions waited for the write lock (WARDEN_LOCK_WAIT_LOG), and the p99 of those
 * waits under the concurrent load is reported.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { stringify } from "yaml";
import type { ConcurrencyReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";

export interface ConcurrencyBenchOptions {
	wardenBin: string;
	tempDir: string;
	processes: number;
	/** Governed calls per process. */
	calls: number;
	onProgress: (line: string) => void;
}

interface Variant {
	perSecond: number;
	wallUs: number;
	lockWaitsUs: number[];
}

export async function benchConcurrency(options: ConcurrencyBenchOptions): Promise<ConcurrencyReport> {
	const { processes, calls, onProgress } = options;
	if (!existsSync(options.wardenBin)) throw new BenchError(`concurrency: ${options.wardenBin} does not exist`);
	const base = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-concurrency-")));
	try {
		onProgress(`concurrency: ${calls} governed calls in 1 process, then in each of ${processes} processes at once`);
		const single = await runVariant(options, join(base, "single"), 1);
		const concurrent = await runVariant(options, join(base, "concurrent"), processes);
		const waits = [...concurrent.lockWaitsUs].sort((a, b) => a - b);
		return {
			processes,
			callsPerProcess: calls,
			single: { perSecond: single.perSecond, wallUs: single.wallUs },
			concurrent: { perSecond: concurrent.perSecond, wallUs: concurrent.wallUs },
			ratio: concurrent.perSecond / single.perSecond,
			lockWaits: waits.length,
			lockWaitP99Us: percentile(waits, 0.99),
			lockWaitMaxUs: waits[waits.length - 1] ?? 0,
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

async function runVariant(options: ConcurrencyBenchOptions, dir: string, count: number): Promise<Variant> {
	mkdirSync(dir, { recursive: true });
	const stateDir = join(dir, "state");
	const log = join(dir, "lock-waits.jsonl");
	const steps = [...Array.from({ length: options.calls }, (_, i) => ({ tool_calls: [{ name: "write_file", arguments: { path: `f${i}.txt`, content: `${i}\n` } }] })), { text: "done" }];
	const plan = join(dir, "plan.yaml");
	writeFileSync(plan, stringify({ steps }));
	const workspaces = Array.from({ length: count }, (_, i) => {
		const ws = join(dir, `ws${i}`);
		mkdirSync(ws);
		return ws;
	});
	const started = performance.now();
	await Promise.all(workspaces.map((ws) => runOne(options.wardenBin, ["run", "bench", "--model", `scripted:${plan}`, "--workspace", ws, "--state-dir", stateDir, "--mode", "full-access", "--max-steps", String(options.calls + 1)], log, dir)));
	const wallUs = (performance.now() - started) * 1000;
	const lockWaitsUs = existsSync(log)
		? readFileSync(log, "utf8")
				.split("\n")
				.filter((line) => line !== "")
				.flatMap((line) => JSON.parse(line) as number[])
		: [];
	return { perSecond: (count * options.calls * 1e6) / wallUs, wallUs, lockWaitsUs };
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
