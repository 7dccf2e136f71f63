import { readFile } from "node:fs/promises";
import { AbortError } from "./abort-error.js";
import type { ModelProvider, ModelRequest, ModelResponse, RawToolCall } from "./provider.js";
import { decodeScriptedPlanText, parseScriptedPlan, planError, type ScriptedPlan, type ScriptedStep } from "./scripted-plan.js";

export { SCRIPTED_PLAN_SCHEMA, type ScriptedPlan, type ScriptedStep, type ScriptedToolCall } from "./scripted-plan.js";

/** What a scripted model says once every step has been answered. */
export const SCRIPTED_PLAN_FINISHED = "(scripted plan finished)";

/**
 * A deterministic model for tests and evaluation: each complete() answers with the next step of a
 * plan, whatever the conversation says, so a run can be replayed exactly.
 */
export class ScriptedModel implements ModelProvider {
	readonly spec: string;
	readonly locality = "in-process" as const;
	readonly plan: ScriptedPlan;
	readonly contextWindow?: number;
	private next = 0;
	private summaries = 0;

	private constructor(plan: ScriptedPlan, spec: string) {
		this.plan = plan;
		this.spec = spec;
		if (plan.context_window !== undefined) this.contextWindow = plan.context_window;
	}

	/** Reads a plan file (JSON or YAML); any problem becomes a one-line ModelError naming the file. */
	static async load(file: string): Promise<ScriptedModel> {
		let text: string;
		try {
			text = await readFile(file, "utf8");
		} catch (error) {
			throw planError(file, readProblem(error));
		}
		const plan = parseScriptedPlan(decodeScriptedPlanText(text, file), file);
		return new ScriptedModel(plan, `scripted:${file}`);
	}

	/** Builds a model from a plan already in memory; `spec` also labels its validation errors. */
	static fromPlan(plan: unknown, spec: string): ScriptedModel {
		return new ScriptedModel(parseScriptedPlan(plan, spec), spec);
	}

	/** How many steps have not been answered yet. */
	get remainingSteps(): number {
		return this.plan.steps.length - this.next;
	}

	private summary(request: ModelRequest): string {
		const planned = this.plan.summaries?.[this.summaries];
		this.summaries += 1;
		return planned ?? scriptedSummary(request.messages);
	}

	async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		// Checked before consuming, so a cancelled call leaves the step for the next one.
		if (signal.aborted) throw new AbortError();
		// A compaction request is answered apart from the plan's steps, so a plan's turns read the same with or without one.
		if (request.purpose === "compaction") return { text: this.summary(request), toolCalls: [] };
		const step = this.plan.steps[this.next];
		if (step === undefined) {
			request.onTextDelta?.(SCRIPTED_PLAN_FINISHED);
			return { text: SCRIPTED_PLAN_FINISHED, toolCalls: [] };
		}
		this.next += 1;
		const text = step.text ?? "";
		if (text !== "") request.onTextDelta?.(text);
		return { text, toolCalls: toolCallsOf(step) };
	}
}

/** A scripted model's own summary: one short line per message, tool results by size only, so it is always smaller than what it covers. */
export function scriptedSummary(messages: ModelRequest["messages"]): string {
	// The last message is the runtime's request for the summary.
	const covered = messages.slice(0, -1).filter((m) => m.role !== "system");
	const first = (text: string) => {
		const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
		return line.length > 60 ? `${line.slice(0, 60)}…` : line;
	};
	const lines = covered.map((m) => {
		if (m.role === "tool") return `- ${m.name} ${m.tool_call_id} answered ${m.content.length} characters`;
		if (m.role === "assistant" && m.tool_calls?.length) return `- assistant called ${m.tool_calls.map((c) => `${c.name} (${c.id})`).join(", ")}`;
		return `- ${m.role}: ${first(m.content)}`;
	});
	return [`Summary of ${covered.length} message(s):`, ...lines].join("\n");
}

function toolCallsOf(step: ScriptedStep): RawToolCall[] {
	return (step.tool_calls ?? []).map((call) => {
		// Objects are copied so a consumer that mutates them cannot change a later replay of the plan.
		const args = typeof call.arguments === "string" ? call.arguments : structuredClone(call.arguments ?? {});
		return call.id === undefined ? { name: call.name, arguments: args } : { id: call.id, name: call.name, arguments: args };
	});
}

function readProblem(error: unknown): string {
	const code = (error as NodeJS.ErrnoException | undefined)?.code;
	if (code === "ENOENT") return "file not found";
	if (code === "EISDIR") return "is a directory, not a plan file";
	if (code === "EACCES") return "permission denied";
	return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
}
