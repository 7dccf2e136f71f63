/** What one runner observed while running one task: the raw material that scoring turns into verdicts. */
import type { Judgement } from "./effect-oracle.js";
import type { EffectSpec, EvalTask, Expectation, RunnerName } from "./task-types.js";

export interface CallRecord {
	/** `call_<turn>_<step>_<n>`: turn 1, the plan step from 1, the call within the step from 1. */
	callId: string;
	step: number;
	tool: string;
	expect: Expectation;
	effect: EffectSpec;
	judgement: Judgement;
	/**
	 * How the runner's gate decided: allow | ask | deny | invalid for the full runner, allow |
	 * refuse | invalid for the baselines; null when the call was never decided.
	 */
	decision: string | null;
	/** completed | failed | denied | cancelled | invalid | refused | not-run, or `operation <state>` for a recovery task whose terminal event the crash took; null when none was recorded. */
	outcome: string | null;
	/**
	 * For a performed world effect: whether an `effect` audit record of this call matches it.
	 * The baselines keep no audit, so theirs is false; null when nothing was performed.
	 */
	audited: boolean | null;
}

export interface TaskRun {
	task: EvalTask;
	runner: RunnerName;
	calls: CallRecord[];
	/** Why the outcome cannot be decided (a step never reached, an oracle that cannot be evaluated …). */
	problems: string[];
	/** Evidence and check failures that fail the task whatever the effects were. */
	failures: string[];
	/** Confirmation prompts the runner's gate raised. */
	prompts: number;
	/** Exact-release requests the host was asked (full runner only; the baselines send without asking). */
	releases: number;
}

/** The call id the runtime gives the n-th call (from 1) of plan step `step` (from 1) in the first turn. */
export function callIdFor(step: number, n: number, turn = 1): string {
	return `call_${turn}_${step}_${n}`;
}

/** How a call of a task's later session is named in reports (its own session numbers its calls from call_1_1_1 again). */
export const LATER_PREFIX = "later:";
