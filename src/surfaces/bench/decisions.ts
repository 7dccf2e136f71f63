/**
 * Permission decisions per second: PermissionEngine.decide over the decision mix, against naive
 * literal prefix matching of the same rules and inputs. The engine parses every shell command
 * (tree-sitter), looks through wrappers and normalizes flags; the yardstick does none of that, so
 * the ratio is the price of parsing, not a like-for-like race.
 *
 * What the figure depends on: the CPU, and V8 having compiled the path to its optimizing tier
 * (the warm-up below waits for that). Not on the machine's files: the context names a fictitious
 * workspace and home and brings no resolvePath or resolveProgram, so a decision reads no file, no
 * PATH entry and no config (a session's lookups are cached per session: program-lookup.ts).
 */
import { performance } from "node:perf_hooks";
import { PermissionEngine } from "../../kernel/admission/permission-engine.js";
import type { Decision, PolicyContext } from "../../kernel/admission/types.js";
import type { DeciderTiming, DecisionOutcome, DecisionReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { median } from "./call-timing.js";
import { type DecisionInput, decisionInputs, decisionRules } from "./decision-mix.js";
import { NaivePrefixMatcher } from "./naive-prefix-matcher.js";

export interface DecisionBenchOptions {
	rounds: number;
	variants: number;
	onProgress: (line: string) => void;
	/** The least time both deciders run unmeasured after the first pass; default WARM_UP_MS. */
	warmUpMs?: number;
	/** The most; default WARM_UP_LIMIT_MS. */
	warmUpLimitMs?: number;
}

/**
 * V8 keeps compiling the decision path to faster tiers (the grammar's wasm and the JS around it)
 * for seconds after the first pass, in background threads that fall behind on a busy machine: a
 * fixed warm-up measured compilation there and decisions elsewhere (issue 32). Both deciders run at
 * least this long, then until the engine's fastest pass has not improved by IMPROVEMENT for
 * SETTLED_MS and SETTLED_PASSES passes (a busy machine makes each pass slow, and a second of them
 * too few to tell), at most WARM_UP_LIMIT_MS.
 */
export const WARM_UP_MS = 1000;
export const WARM_UP_LIMIT_MS = 10_000;
const SETTLED_MS = 1000;
const SETTLED_PASSES = 20;
const IMPROVEMENT = 0.02;

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

type Decide = (input: DecisionInput) => Decision;

interface Pass {
	ms: number;
	/** Process CPU milliseconds over the pass. */
	cpuMs: number;
	denied: number;
}

function countOutcomes(decisions: readonly Decision[]): Record<DecisionOutcome, number> {
	const counts = { allow: 0, ask: 0, deny: 0 };
	for (const d of decisions) counts[d]++;
	return counts;
}

/** One timed pass over the inputs: elapsed and CPU milliseconds, and how many were denied. */
function timedPass(decide: Decide, inputs: readonly DecisionInput[]): Pass {
	let denied = 0;
	const cpu = process.cpuUsage();
	const started = performance.now();
	for (const input of inputs) if (decide(input) === "deny") denied++;
	const ms = performance.now() - started;
	const used = process.cpuUsage(cpu);
	return { ms, cpuMs: (used.user + used.system) / 1000, denied };
}

function deciderTiming(passes: readonly Pass[], firstPassMs: number, inputs: number, outcomes: Record<DecisionOutcome, number>): DeciderTiming {
	const medianMs = median(passes.map((p) => p.ms));
	const perDecisionUs = (ms: number) => (ms * 1000) / inputs;
	const wallMs = passes.reduce((sum, p) => sum + p.ms, 0);
	return {
		decisions: inputs * passes.length,
		perSecond: inputs / (medianMs / 1000),
		medianUsPerDecision: perDecisionUs(medianMs),
		bestUsPerDecision: perDecisionUs(Math.min(...passes.map((p) => p.ms))),
		cpuUsPerDecision: perDecisionUs(median(passes.map((p) => p.cpuMs))),
		cpuShare: passes.reduce((sum, p) => sum + p.cpuMs, 0) / wallMs,
		firstPassUsPerDecision: perDecisionUs(firstPassMs),
		outcomes,
	};
}

/** Both deciders, interleaved, until the engine's fastest pass settles (see WARM_UP_MS). */
function warmUp(deciders: Record<"engine" | "naive", Decide>, inputs: readonly DecisionInput[], minMs: number, limitMs: number): DecisionReport["warmUp"] {
	const started = performance.now();
	let passes = 0;
	let best = Number.POSITIVE_INFINITY;
	let bestAt = started;
	let bestPass = 0;
	for (;;) {
		const now = performance.now();
		const elapsed = now - started;
		if (elapsed >= minMs && now - bestAt >= SETTLED_MS && passes - bestPass >= SETTLED_PASSES) return { ms: elapsed, passes, settled: true };
		if (elapsed >= limitMs) return { ms: elapsed, passes, settled: false };
		const pass = timedPass(deciders.engine, inputs);
		timedPass(deciders.naive, inputs);
		passes++;
		if (pass.ms < best * (1 - IMPROVEMENT)) {
			bestAt = performance.now();
			bestPass = passes;
		}
		best = Math.min(best, pass.ms);
	}
}

function pushed(into: Decision[], decision: Decision): Decision {
	into.push(decision);
	return decision;
}

export async function benchDecisions(options: DecisionBenchOptions): Promise<DecisionReport> {
	const engine = await PermissionEngine.create();
	const { hostRules, runDenyRules } = decisionRules();
	// A fixed, fictitious workspace: decide() is pure and never touches the filesystem. No parseShell:
	// every decision parses its command, so the figure never leans on a session's parse cache.
	const ctx: PolicyContext = { mode: "workspace-write", workspace: "/bench/project", home: "/home/bench", runDenyRules, hostRules };
	const naive = new NaivePrefixMatcher(runDenyRules, hostRules);
	const inputs = decisionInputs(options.variants);
	const deciders: Record<"engine" | "naive", Decide> = {
		engine: (input) => engine.decide(input.facts, input.args, ctx).decision,
		naive: (input) => naive.decide(input),
	};

	options.onProgress(`decisions: first pass over ${inputs.length} inputs`);
	const engineDecisions: Decision[] = [];
	const naiveDecisions: Decision[] = [];
	const firstPass = {
		engine: timedPass((input) => pushed(engineDecisions, deciders.engine(input)), inputs).ms,
		naive: timedPass((input) => pushed(naiveDecisions, deciders.naive(input)), inputs).ms,
	};
	let naiveMorePermissive = 0;
	let naiveStricter = 0;
	engineDecisions.forEach((d, i) => {
		const diff = SEVERITY[naiveDecisions[i]!] - SEVERITY[d];
		if (diff < 0) naiveMorePermissive++;
		else if (diff > 0) naiveStricter++;
	});
	const expectedDenied = { engine: countOutcomes(engineDecisions).deny, naive: countOutcomes(naiveDecisions).deny };
	const warm = warmUp(deciders, inputs, options.warmUpMs ?? WARM_UP_MS, options.warmUpLimitMs ?? WARM_UP_LIMIT_MS);
	options.onProgress(`decisions: ${warm.passes} more warm-up passes over ${Math.round(warm.ms)} ms${warm.settled ? "" : " (the fastest pass was still improving at the limit)"}`);

	options.onProgress(`decisions: ${options.rounds} measured rounds, engine and naive interleaved`);
	const passes: Record<"engine" | "naive", Pass[]> = { engine: [], naive: [] };
	for (let r = 0; r < options.rounds; r++) {
		for (const name of ["engine", "naive"] as const) {
			const pass = timedPass(deciders[name], inputs);
			// Also keeps the optimizer from discarding decisions nobody reads.
			if (pass.denied !== expectedDenied[name]) {
				throw new BenchError(`${name} denied ${pass.denied} inputs in round ${r + 1}, ${expectedDenied[name]} in the warm-up: decisions are not deterministic`);
			}
			passes[name].push(pass);
		}
	}

	const engineTiming = deciderTiming(passes.engine, firstPass.engine, inputs.length, countOutcomes(engineDecisions));
	const naiveTiming = deciderTiming(passes.naive, firstPass.naive, inputs.length, countOutcomes(naiveDecisions));
	const shellCommands = new Set(inputs.filter((i) => i.facts.subject?.kind === "command").map((i) => i.facts.subject!.value));
	return {
		inputsPerRound: inputs.length,
		rounds: options.rounds,
		distinctShellCommands: shellCommands.size,
		hostRules: hostRules.length,
		runDenyRules: runDenyRules.length,
		engine: engineTiming,
		naive: naiveTiming,
		warmUp: warm,
		ratio: naiveTiming.perSecond / engineTiming.perSecond,
		naiveMorePermissive,
		naiveStricter,
	};
}
