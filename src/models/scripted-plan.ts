import { parse as parseYaml } from "yaml";
import { oneLine } from "./one-line.js";
import { ModelError } from "./provider.js";

/** One tool call a scripted model proposes. */
export interface ScriptedToolCall {
	id?: string;
	name: string;
	/** An object, or a raw string handed to the runtime untouched (so tests can feed it malformed JSON). */
	arguments?: Record<string, unknown> | string;
}

/** One model turn: what a single complete() call answers. */
export interface ScriptedStep {
	text?: string;
	tool_calls?: ScriptedToolCall[];
}

export interface ScriptedPlan {
	description?: string;
	/** The context window the scripted model reports (tokens), so a plan can make a session compact. */
	context_window?: number;
	/** Answers to the runtime's compaction requests, in order; past the end, a summary listing what was said. */
	summaries?: string[];
	steps: ScriptedStep[];
}

/** The plan format as JSON Schema (draft 2020-12). `parseScriptedPlan` enforces the same rules. */
export const SCRIPTED_PLAN_SCHEMA = {
	$schema: "https://json-schema.org/draft/2020-12/schema",
	$id: "https://warden.dev/schemas/scripted-plan.json",
	title: "Warden scripted model plan",
	type: "object",
	required: ["steps"],
	additionalProperties: false,
	properties: {
		description: { type: "string" },
		context_window: { type: "integer", minimum: 1 },
		summaries: { type: "array", items: { type: "string" } },
		steps: {
			type: "array",
			items: {
				type: "object",
				additionalProperties: false,
				// With only these two keys allowed, one property means "text, tool_calls or both".
				minProperties: 1,
				properties: {
					text: { type: "string" },
					tool_calls: {
						type: "array",
						items: {
							type: "object",
							required: ["name"],
							additionalProperties: false,
							properties: {
								id: { type: "string", minLength: 1 },
								name: { type: "string", minLength: 1 },
								arguments: { anyOf: [{ type: "object" }, { type: "string" }] },
							},
						},
					},
				},
			},
		},
	},
} as const;

const PLAN_KEYS = ["description", "context_window", "summaries", "steps"];
const STEP_KEYS = ["text", "tool_calls"];
const CALL_KEYS = ["id", "name", "arguments"];

/** Decodes plan text: JSON for `.json` files or text that opens with `{`, YAML otherwise. */
export function decodeScriptedPlanText(text: string, label: string): unknown {
	const asJson = label.toLowerCase().endsWith(".json") || text.trimStart().startsWith("{");
	try {
		return asJson ? JSON.parse(text) : parseYaml(text, { logLevel: "error" });
	} catch (error) {
		// YAML errors continue with a code frame after the first line; the first line names the spot.
		const message = error instanceof Error ? (error.message.split("\n")[0] ?? "").replace(/:$/, "") : String(error);
		throw planError(label, `is not valid ${asJson ? "JSON" : "YAML"}: ${message}`);
	}
}

/** Checks an already-decoded plan; the first problem found becomes a one-line ModelError. */
export function parseScriptedPlan(plan: unknown, label: string): ScriptedPlan {
	if (!isObject(plan)) {
		throw planError(label, `must be an object with a "steps" list, got ${describe(plan)}`);
	}
	rejectUnknownKeys(plan, PLAN_KEYS, "the plan", label);
	if (plan.description !== undefined && typeof plan.description !== "string") {
		throw planError(label, "description must be a string");
	}
	if (!Array.isArray(plan.steps)) {
		throw planError(label, `steps must be a list, got ${describe(plan.steps)}`);
	}
	const steps = plan.steps.map((step, index) => parseStep(step, `steps[${index}]`, label));
	const parsed: ScriptedPlan = plan.description === undefined ? { steps } : { description: plan.description, steps };
	if (plan.context_window !== undefined) {
		if (typeof plan.context_window !== "number" || !Number.isInteger(plan.context_window) || plan.context_window < 1) throw planError(label, `context_window must be a positive whole number of tokens, got ${typeof plan.context_window === "number" ? plan.context_window : describe(plan.context_window)}`);
		parsed.context_window = plan.context_window;
	}
	if (plan.summaries !== undefined) {
		if (!Array.isArray(plan.summaries) || plan.summaries.some((x) => typeof x !== "string")) throw planError(label, "summaries must be a list of strings");
		parsed.summaries = plan.summaries as string[];
	}
	return parsed;
}

function parseStep(step: unknown, path: string, label: string): ScriptedStep {
	if (!isObject(step)) throw planError(label, `${path} must be an object, got ${describe(step)}`);
	rejectUnknownKeys(step, STEP_KEYS, path, label);
	if (step.text === undefined && step.tool_calls === undefined) {
		throw planError(label, `${path} needs "text", "tool_calls" or both`);
	}
	const parsed: ScriptedStep = {};
	if (step.text !== undefined) {
		if (typeof step.text !== "string") throw planError(label, `${path}.text must be a string`);
		parsed.text = step.text;
	}
	if (step.tool_calls !== undefined) {
		if (!Array.isArray(step.tool_calls)) throw planError(label, `${path}.tool_calls must be a list`);
		parsed.tool_calls = step.tool_calls.map((call, index) =>
			parseCall(call, `${path}.tool_calls[${index}]`, label),
		);
	}
	return parsed;
}

function parseCall(call: unknown, path: string, label: string): ScriptedToolCall {
	if (!isObject(call)) throw planError(label, `${path} must be an object, got ${describe(call)}`);
	rejectUnknownKeys(call, CALL_KEYS, path, label);
	if (typeof call.name !== "string") throw planError(label, `${path}.name must be a string`);
	if (call.name === "") throw planError(label, `${path}.name must not be empty`);
	const parsed: ScriptedToolCall = { name: call.name };
	if (call.id !== undefined) {
		if (typeof call.id !== "string" || call.id === "") {
			throw planError(label, `${path}.id must be a non-empty string`);
		}
		parsed.id = call.id;
	}
	if (call.arguments !== undefined) {
		if (typeof call.arguments !== "string" && !isObject(call.arguments)) {
			throw planError(label, `${path}.arguments must be an object or a string, got ${describe(call.arguments)}`);
		}
		parsed.arguments = call.arguments;
	}
	return parsed;
}

function rejectUnknownKeys(value: Record<string, unknown>, known: string[], path: string, label: string): void {
	const unknown = Object.keys(value).find((key) => !known.includes(key));
	if (unknown !== undefined) {
		throw planError(label, `${path} has unknown key "${unknown}" (allowed: ${known.join(", ")})`);
	}
}

export function planError(label: string, problem: string): ModelError {
	return new ModelError(oneLine(`scripted plan ${label}: ${problem}`, 400));
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
	if (value === null) return "null";
	if (value === undefined) return "nothing";
	if (Array.isArray(value)) return "a list";
	return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
