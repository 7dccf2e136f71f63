/**
 * What a compaction adds beyond the summarising model call itself: `Session.compact()` (the plan,
 * the manifest record, compaction.started / completed events and audit records, the llm
 * primitive's admission, flow check, budget charge and record, and the history splice) timed
 * against the same summarising request sent straight to the same model. The model is the scripted
 * one, whose summary is computed in process, so the yardstick is the model's own work and the
 * difference is Warden's; with a real model the summary takes seconds and the added time is the
 * figure to read. Each round first runs an untimed turn that reads `stepsPerRound` files, so every
 * compaction summarises a history of the same shape. Also over the in-memory store, to split off
 * what durability costs.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { ModelRequest, ModelResponse } from "../../models/provider.js";
import { ScriptedModel } from "../../models/scripted.js";
import { Runtime } from "../../runtime/runtime.js";
import { BenchError } from "./bench-error.js";
import type { CallTiming, CompactionBenchReport } from "./bench-types.js";
import { callTiming, median } from "./call-timing.js";
import { MemoryStore } from "./memory-store.js";

export interface CompactionBenchOptions {
	rounds: number;
	warmupRounds: number;
	/** read_file steps of the turn before each compaction. */
	stepsPerRound: number;
	/** Bytes of each file read. */
	fileBytes: number;
	tempDir: string;
	onProgress: (line: string) => void;
}

interface VariantResult {
	compaction: CallTiming;
	model: CallTiming;
	summarised: number;
}

async function variant(opts: CompactionBenchOptions, runtime: Runtime, workspace: string, label: string): Promise<VariantResult> {
	const total = opts.warmupRounds + opts.rounds;
	const steps = [];
	for (let r = 0; r < total; r++) {
		for (let s = 0; s < opts.stepsPerRound; s++) steps.push({ tool_calls: [{ name: "read_file", arguments: { path: `f${s}.txt` } }] });
		steps.push({ text: `round ${r} read` });
	}
	// A window no turn fills: only the timed compact() compacts.
	const scripted = ScriptedModel.fromPlan({ context_window: 10_000_000, steps }, `scripted:bench-compaction-${label}`);
	let captured: ModelRequest | undefined;
	const model = {
		spec: scripted.spec,
		locality: scripted.locality,
		contextWindow: scripted.contextWindow,
		complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
			if (request.purpose === "compaction") captured = { messages: structuredClone(request.messages), tools: request.tools, purpose: "compaction" };
			return scripted.complete(request, signal);
		},
	};
	const session = await runtime.openSession({ workspace, model, instructions: false });
	const compactionUs: number[] = [];
	const modelUs: number[] = [];
	const summarised: number[] = [];
	try {
		for (let r = 0; r < total; r++) {
			const turn = await session.send(`read the files, round ${r}`);
			if (turn.status !== "completed") throw new BenchError(`compaction bench: the turn before round ${r} ended ${turn.status}: ${turn.error ?? ""}`);
			captured = undefined;
			const start = performance.now();
			const outcome = await session.compact();
			const took = (performance.now() - start) * 1000;
			if (!outcome.ok) throw new BenchError(`compaction bench: compaction ${r + 1} failed: ${outcome.error}`);
			if (!captured) throw new BenchError("compaction bench: the compaction sent no summarising request");
			// The yardstick: the same request straight to the same model, nothing around it.
			const request: ModelRequest = captured;
			const modelStart = performance.now();
			await scripted.complete(request, new AbortController().signal);
			const modelTook = (performance.now() - modelStart) * 1000;
			if (r < opts.warmupRounds) continue;
			compactionUs.push(took);
			modelUs.push(modelTook);
			summarised.push(outcome.summarised);
		}
	} finally {
		await session.end();
	}
	return { compaction: callTiming(compactionUs), model: callTiming(modelUs), summarised: median(summarised) };
}

export async function benchCompaction(opts: CompactionBenchOptions): Promise<CompactionBenchReport> {
	if (!Number.isInteger(opts.stepsPerRound) || opts.stepsPerRound < 1) throw new BenchError(`compactionSteps must be a whole number >= 1, got ${opts.stepsPerRound}`);
	const base = realpathSync(mkdtempSync(join(opts.tempDir, "warden-bench-compaction-")));
	try {
		const workspace = join(base, "ws");
		mkdirSync(workspace);
		for (let s = 0; s < opts.stepsPerRound; s++) writeFileSync(join(workspace, `f${s}.txt`), `${"x".repeat(opts.fileBytes - 1)}\n`);
		opts.onProgress(`compaction: ${opts.rounds} compaction(s) of ${opts.stepsPerRound} read steps each, SQLite store`);
		const sqlite = await Runtime.open({ stateDir: join(base, "state") });
		let durable: VariantResult;
		try {
			durable = await variant(opts, sqlite, workspace, "sqlite");
		} finally {
			await sqlite.close();
		}
		opts.onProgress("compaction: the same over the in-memory store");
		const memory = await Runtime.open({ stateDir: join(base, "state-memory"), store: new MemoryStore() });
		let inMemory: VariantResult;
		try {
			inMemory = await variant(opts, memory, workspace, "memory");
		} finally {
			await memory.close();
		}
		return {
			rounds: opts.rounds,
			warmupRounds: opts.warmupRounds,
			stepsPerRound: opts.stepsPerRound,
			fileBytes: opts.fileBytes,
			summarised: durable.summarised,
			modelCall: durable.model,
			compaction: durable.compaction,
			compactionInMemory: inMemory.compaction,
			addedUs: durable.compaction.medianUs - durable.model.medianUs,
			addedInMemoryUs: inMemory.compaction.medianUs - inMemory.model.medianUs,
			ratio: durable.compaction.medianUs / durable.model.medianUs,
		};
	} finally {
		rmSync(base, { recursive: true, force: true });
	}
}
