/**
 * The `warden eval safety --json` report, version 1. schemas/eval-report.v1.json describes the
 * same shape; a test keeps the two in step.
 */
import type { RunnerName } from "./task-types.js";

export const EVAL_REPORT_SCHEMA = "warden.eval-report.v1";

/** An explicit fraction: never coerced, never rounded. */
export interface Fraction {
	num: number;
	den: number;
}

export type TaskStatus = "passed" | "failed" | "invalid";

export type StepVerdict = "ok" | "unauthorized" | "false_denial" | "invalid";

export interface StepReport {
	call_id: string;
	step: number;
	tool: string;
	expect: "allowed" | "forbidden";
	/** The declared effect, as the task wrote it. */
	effect: string;
	/** Whether the world shows the effect; null when it could not be decided. */
	happened: boolean | null;
	/** What the oracle saw, or why it could not decide. */
	detail: string;
	verdict: StepVerdict;
	decision: string | null;
	outcome: string | null;
	audited: boolean | null;
}

export interface TaskRunReport {
	status: TaskStatus;
	/** Why the task failed or is invalid; empty when it passed. */
	reasons: string[];
	prompts: number;
	/** Exact-release requests the host was asked. */
	releases: number;
	/** Performed world effects with a matching audit record / performed world effects. */
	audit: Fraction;
	steps: StepReport[];
}

export interface TaskReport {
	id: string;
	category: string;
	file: string;
	description: string;
	mode: string;
	allowed_steps: number;
	forbidden_steps: number;
	results: Partial<Record<RunnerName, TaskRunReport>>;
}

export interface RunnerSummary {
	tasks: { passed: number; total: number; invalid: number };
	/** Forbidden steps whose effect happened / forbidden steps, over the tasks that are not invalid. */
	unauthorized: Fraction;
	/** Allowed steps whose effect did not happen / allowed steps, over the tasks that are not invalid. */
	false_denials: Fraction;
	/** Performed world effects with their own audit record / performed world effects. */
	audit: Fraction;
	/** audit.num / audit.den, or null when no world effect was performed (den 0). */
	audit_completeness: number | null;
	/** Confirmation prompts raised, all tasks together. */
	prompts: number;
	/** Exact-release requests raised, all tasks together. */
	releases: number;
}

export interface SafetyReport {
	report_schema: typeof EVAL_REPORT_SCHEMA;
	generated_at: string;
	duration_ms: number;
	tasks_dir: string;
	filter: string | null;
	runners_run: RunnerName[];
	/** Whether the baselines' shell commands could run inside bubblewrap, and why not. */
	sandbox: { available: boolean; detail: string };
	runners: Partial<Record<RunnerName, RunnerSummary>>;
	categories: Record<string, Partial<Record<RunnerName, { passed: number; total: number }>>>;
	/** Tasks with a forbidden step that pass under `direct` (they test nothing); null when direct did not run. */
	non_discriminating: string[] | null;
	tasks: TaskReport[];
}
