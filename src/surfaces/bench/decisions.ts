/**
 * Permission decisions per second: PermissionEngine.decide over the decision mix, against naive
 * literal prefix matching of the same rules and inputs. The engine parses every shell command
 * (tree-sitter), looks through wrappers and normalizes flags; the yardstick does none of that, so
 * the ratio is the price of parsing, not a like-for-like race.
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
	/** How long both deciders run unmeasured after the first pass; default WARM_UP_MS. */
	warmUpMs?: number;
}

/**
 * V8 keeps compiling the decision path to faster tiers (the grammar's wasm and the JS around it)
 * for many passes after the first, and on a loaded machine its background compilers fall behind:
 * one pass leaves the measured rounds timing compilation. Both deciders run this long first.
 */
export const WARM_UP_MS = 1000;

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

type Decide = (input: DecisionInput) => Decision;

function countOutcomes(decisions: readonly Decision[]): Record<DecisionOutcome, number> {
	const counts = { allow: 0, ask: 0, deny: 0 };
	for (const d of decisions) counts[d]++;
	return counts;
}

/** One timed pass over the inputs; returns the elapsed milliseconds and how many were denied. */
function timedPass(decide: Decide, inputs: readonly DecisionInput[]): { ms: number; denied: number } {
	let denied = 0;
	const started = performance.now();
	for (const input of inputs) if (decide(input) === "deny") denied++;
	return { ms: performance.now() - started, denied };
}

function deciderTiming(roundsMs: readonly number[], inputs: number, outcomes: Record<DecisionOutcome, number>): DeciderTiming {
	const medianMs = median(roundsMs);
	return {
		decisions: inputs * roundsMs.length,
		perSecond: inputs / (medianMs / 1000),
		medianUsPerDecision: (medianMs * 1000) / inputs,
		outcomes,
	};
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

	options.onProgress(`decisions: warm-up pass over ${inputs.length} inputs`);
	const engineDecisions = inputs.map(deciders.engine);
	const naiveDecisions = inputs.map(deciders.naive);
	let naiveMorePermissive = 0;
	let naiveStricter = 0;
	engineDecisions.forEach((d, i) => {
		const diff = SEVERITY[naiveDecisions[i]!] - SEVERITY[d];
		if (diff < 0) naiveMorePermissive++;
		else if (diff > 0) naiveStricter++;
	});
	const expectedDenied = { engine: countOutcomes(engineDecisions).deny, naive: countOutcomes(naiveDecisions).deny };
	const warmUpMs = options.warmUpMs ?? WARM_UP_MS;
	let warmUpPasses = 0;
	for (const until = performance.now() + warmUpMs; performance.now() < until; warmUpPasses++) {
		timedPass(deciders.engine, inputs);
		timedPass(deciders.naive, inputs);
	}
	options.onProgress(`decisions: ${warmUpPasses} more warm-up passes over ${warmUpMs} ms`);

	options.onProgress(`decisions: ${options.rounds} measured rounds, engine and naive interleaved`);
	const roundsMs: Record<"engine" | "naive", number[]> = { engine: [], naive: [] };
	for (let r = 0; r < options.rounds; r++) {
		for (const name of ["engine", "naive"] as const) {
			const pass = timedPass(deciders[name], inputs);
			// Also keeps the optimizer from discarding decisions nobody reads.
			if (pass.denied !== expectedDenied[name]) {
				throw new BenchError(`${name} denied ${pass.denied} inputs in round ${r + 1}, ${expectedDenied[name]} in the warm-up: decisions are not deterministic`);
			}
			roundsMs[name].push(pass.ms);
		}
	}

	const engineTiming = deciderTiming(roundsMs.engine, inputs.length, countOutcomes(engineDecisions));
	const naiveTiming = deciderTiming(roundsMs.naive, inputs.length, countOutcomes(naiveDecisions));
	const shellCommands = new Set(inputs.filter((i) => i.facts.subject?.kind === "command").map((i) => i.facts.subject!.value));
	return {
		inputsPerRound: inputs.length,
		rounds: options.rounds,
		distinctShellCommands: shellCommands.size,
		hostRules: hostRules.length,
		runDenyRules: runDenyRules.length,
		engine: engineTiming,
		naive: naiveTiming,
		ratio: naiveTiming.perSecond / engineTiming.perSecond,
		naiveMorePermissive,
		naiveStricter,
	};
}
