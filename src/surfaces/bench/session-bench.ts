/**
 * A long scripted session: thousands of small governed calls (read_file and list_dir over a small
 * workspace, durable store) in one session, turn after turn. The yardstick is the same session's
 * first calls: per-call time at the end against per-call time at the start shows whether anything
 * the session keeps (history, records, listeners, maps) makes later calls dearer, and RSS after a
 * collection at both points shows whether it is kept in memory.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Runtime } from "../../index.js";
import { ScriptedModel } from "../../models/scripted.js";
import type { SessionBenchReport, SessionWindow } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { median } from "./call-timing.js";
import { heapSnapshot } from "./heap-snapshot.js";

export interface SessionBenchOptions {
	/** Governed calls in the measured session. */
	calls: number;
	/** Calls per turn; the session has calls / callsPerTurn turns. */
	callsPerTurn: number;
	/** Calls in each window compared (the first and the last). */
	window: number;
	/** Calls of a separate session run first, so that the first window is not the JIT's warm-up. */
	warmupCalls: number;
	tempDir: string;
	onProgress: (line: string) => void;
}

const FILES = ["src/a.ts", "src/b.ts", "src/lib/c.ts", "docs/notes.md", "README.md"];
const DIRS = ["src", "src/lib", "docs", "."];

/** The i-th call of the script: mostly reads, every third a listing, cycling through the workspace. */
function scriptedCall(i: number): { name: string; arguments: Record<string, unknown> } {
	if (i % 3 === 2) return { name: "list_dir", arguments: { path: DIRS[i % DIRS.length]! } };
	return { name: "read_file", arguments: { path: FILES[i % FILES.length]! } };
}

function sessionPlan(turns: number, callsPerTurn: number): unknown {
	const steps: unknown[] = [];
	for (let t = 0; t < turns; t++) {
		for (let c = 0; c < callsPerTurn; c++) steps.push({ tool_calls: [scriptedCall(t * callsPerTurn + c)] });
		steps.push({ text: `turn ${t + 1} done` });
	}
	return { description: "benchmark: a long session of small governed calls", steps };
}

function makeWorkspace(base: string): string {
	const workspace = join(base, "workspace");
	for (const dir of DIRS) mkdirSync(join(workspace, dir), { recursive: true });
	for (const [i, file] of FILES.entries()) writeFileSync(join(workspace, file), `// file ${i}\n${"export const x = 1;\n".repeat(8)}`);
	return workspace;
}

/**
 * Runs one session of `calls` calls and returns the time each call took: from the end of the call
 * before (or the start of its turn) to its tool.completed event.
 */
async function runSession(
	runtime: Runtime,
	workspace: string,
	calls: number,
	callsPerTurn: number,
	atCall: (done: number) => void,
): Promise<{ perCallUs: number[]; sessionId: string }> {
	const turns = calls / callsPerTurn;
	const session = await runtime.openSession({
		workspace,
		model: ScriptedModel.fromPlan(sessionPlan(turns, callsPerTurn), "scripted:session-bench"),
		mode: "workspace-write",
		maxSteps: callsPerTurn + 1,
	});
	const perCallUs: number[] = [];
	try {
		for (let t = 0; t < turns; t++) {
			let last = performance.now();
			const result = await session.send(`turn ${t + 1}`, {
				onEvent: (event) => {
					if (event.kind !== "tool.completed") return;
					perCallUs.push((performance.now() - last) * 1000);
					atCall(perCallUs.length);
					// What atCall does (a forced collection) is part of no call's time.
					last = performance.now();
				},
			});
			if (result.status !== "completed" || result.toolCalls.completed !== callsPerTurn) {
				throw new BenchError(`session turn ${t + 1} did not complete its ${callsPerTurn} calls: ${result.status}${result.error ? ` (${result.error})` : ""}, ${JSON.stringify(result.toolCalls)}`);
			}
		}
	} finally {
		await session.end();
	}
	if (perCallUs.length !== calls) throw new BenchError(`session completed ${perCallUs.length} calls, expected ${calls}`);
	return { perCallUs, sessionId: session.id };
}

/** CPU time of this process, user and system, in microseconds. */
function cpuNowUs(): number {
	const { user, system } = process.cpuUsage();
	return user + system;
}

function windowOf(perCallUs: readonly number[], from: number, to: number, cpuUs: number): SessionWindow {
	const slice = perCallUs.slice(from - 1, to);
	const sum = slice.reduce((a, b) => a + b, 0);
	return { fromCall: from, toCall: to, meanUs: sum / slice.length, medianUs: median(slice), cpuUs: cpuUs / slice.length };
}

export async function benchSession(options: SessionBenchOptions): Promise<SessionBenchReport> {
	const { calls, callsPerTurn, window, warmupCalls, onProgress } = options;
	if (calls % callsPerTurn !== 0) throw new BenchError(`session calls (${calls}) must be a multiple of calls per turn (${callsPerTurn})`);
	if (warmupCalls % callsPerTurn !== 0) throw new BenchError(`session warm-up calls (${warmupCalls}) must be a multiple of calls per turn (${callsPerTurn})`);
	if (window * 2 > calls) throw new BenchError(`session window (${window}) must be at most half the calls (${calls})`);
	const base = realpathSync(mkdtempSync(join(options.tempDir || tmpdir(), "warden-bench-session-")));
	let runtime: Runtime | undefined;
	try {
		const workspace = makeWorkspace(base);
		runtime = await Runtime.open({ stateDir: join(base, "state") });
		if (warmupCalls > 0) {
			onProgress(`session: warm-up session of ${warmupCalls} calls`);
			await runSession(runtime, workspace, warmupCalls, callsPerTurn, () => {});
		}
		onProgress(`session: ${calls} calls in ${calls / callsPerTurn} turns of one session (durable store)`);
		let afterFirst: ReturnType<typeof heapSnapshot> | undefined;
		// CPU time at the edges of both windows: on a shared machine it moves less with the load than the wall clock.
		const cpuAt = new Map<number, number>([[0, cpuNowUs()]]);
		const { perCallUs, sessionId } = await runSession(runtime, workspace, calls, callsPerTurn, (done) => {
			if (done === window || done === calls - window || done === calls) cpuAt.set(done, cpuNowUs());
			// Taken inside the event, before the next call: the collection is not part of any call's time.
			if (done === window) afterFirst = heapSnapshot();
			if (done % 1000 === 0) onProgress(`session: ${done} calls`);
		});
		const atEnd = heapSnapshot();
		const first = windowOf(perCallUs, 1, window, cpuAt.get(window)! - cpuAt.get(0)!);
		const last = windowOf(perCallUs, calls - window + 1, calls, cpuAt.get(calls)! - cpuAt.get(calls - window)!);
		const auditRecords = (await runtime.listAudit({ session: sessionId })).length;
		return {
			calls,
			callsPerTurn,
			warmupCalls,
			first,
			last,
			ratio: last.meanUs / first.meanUs,
			medianRatio: last.medianUs / first.medianUs,
			cpuRatio: last.cpuUs / first.cpuUs,
			auditRecords,
			memory: {
				gcForced: atEnd.gcForced && afterFirst!.gcForced,
				rssAfterFirstBytes: afterFirst!.rss,
				rssAtEndBytes: atEnd.rss,
				rssGrowthBytes: atEnd.rss - afterFirst!.rss,
				heapAfterFirstBytes: afterFirst!.heapUsed,
				heapAtEndBytes: atEnd.heapUsed,
				retainedHeapBytesPerCall: (atEnd.heapUsed - afterFirst!.heapUsed) / (calls - window),
			},
		};
	} finally {
		await runtime?.close();
		rmSync(base, { recursive: true, force: true });
	}
}
