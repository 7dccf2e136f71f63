/**
 * A task's `flow:` and `on_release:` keys, checked when the task loads. The shape is checked here,
 * field by field, so a task author sees the file and field at fault; sink patterns keep their
 * `{sink_origin}`-style variables, which the full runner expands once the sink server is up.
 */
import type { FlowSettings, SinkRuleSpec } from "../../kernel/flow/flow-types.js";
import { INTEGRITIES, SENSITIVITIES } from "../../kernel/flow/label.js";
import { RELEASE_ANSWERS, type ReleaseAnswer } from "./task-types.js";

/** Reports one problem with one field and does not return. */
export type TaskFieldFail = (field: string, problem: string) => never;

const FLOW_KEYS = ["sinks", "secret_files", "redact_model_context"];
const SINK_KEYS = ["sink", "trust", "max", "release", "min_integrity", "source"];
const TRUSTS = ["trusted", "untrusted"] as const;
const REDACT_CONTEXT = ["always", "untrusted", "never"] as const;

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function shown(value: unknown): string {
	if (value === undefined) return "nothing";
	if (Array.isArray(value)) return "a list";
	return isObject(value) ? "a mapping" : JSON.stringify(value);
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string, fail: TaskFieldFail): T {
	if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) fail(field, `must be one of ${allowed.join(", ")}, got ${shown(value)}`);
	return value as T;
}

function text(value: unknown, field: string, fail: TaskFieldFail): string {
	if (typeof value !== "string" || value === "") fail(field, `must be a non-empty string, got ${shown(value)}`);
	return value as string;
}

function rejectUnknown(value: Record<string, unknown>, known: readonly string[], field: string, fail: TaskFieldFail): void {
	const unknown = Object.keys(value).find((key) => !known.includes(key));
	if (unknown !== undefined) fail(`${field}.${unknown}`, `unknown key (allowed: ${known.join(", ")})`);
}

function parseSinkRule(value: unknown, field: string, fail: TaskFieldFail): SinkRuleSpec & { source?: string } {
	if (!isObject(value)) fail(field, `must be a mapping { sink, trust, max, release?, min_integrity? }, got ${shown(value)}`);
	const rule = value as Record<string, unknown>;
	rejectUnknown(rule, SINK_KEYS, field, fail);
	const out: SinkRuleSpec & { source?: string } = {
		sink: text(rule.sink, `${field}.sink`, fail),
		trust: oneOf(rule.trust, TRUSTS, `${field}.trust`, fail),
		max: oneOf(rule.max, SENSITIVITIES, `${field}.max`, fail),
	};
	if (!/^[a-z]+:./.test(out.sink)) fail(`${field}.sink`, `"${out.sink}" must be a resource pattern such as net:{sink_origin} or fs:.github/**`);
	if (rule.release !== undefined) out.release = oneOf(rule.release, SENSITIVITIES, `${field}.release`, fail);
	if (rule.min_integrity !== undefined) out.min_integrity = oneOf(rule.min_integrity, INTEGRITIES, `${field}.min_integrity`, fail);
	if (rule.source !== undefined) out.source = text(rule.source, `${field}.source`, fail);
	return out;
}

/** The `flow:` mapping as SessionOptions.flow takes it; undefined when the task has none. */
export function parseFlowSettings(value: unknown, fail: TaskFieldFail): FlowSettings | undefined {
	if (value === undefined) return undefined;
	if (!isObject(value)) fail("flow", `must be a mapping with sinks, secret_files or redact_model_context, got ${shown(value)}`);
	const flow = value as Record<string, unknown>;
	rejectUnknown(flow, FLOW_KEYS, "flow", fail);
	const out: { -readonly [K in keyof FlowSettings]: FlowSettings[K] } = {};
	if (flow.sinks !== undefined) {
		if (!Array.isArray(flow.sinks)) fail("flow.sinks", `must be a list of sink rules, got ${shown(flow.sinks)}`);
		out.sinks = (flow.sinks as unknown[]).map((rule, i) => parseSinkRule(rule, `flow.sinks[${i}]`, fail));
	}
	if (flow.secret_files !== undefined) {
		if (!Array.isArray(flow.secret_files)) fail("flow.secret_files", `must be a list of globs, got ${shown(flow.secret_files)}`);
		out.secret_files = (flow.secret_files as unknown[]).map((glob, i) => text(glob, `flow.secret_files[${i}]`, fail));
	}
	if (flow.redact_model_context !== undefined) {
		out.redact_model_context = oneOf(flow.redact_model_context, REDACT_CONTEXT, "flow.redact_model_context", fail);
	}
	return out;
}

/** `on_release:`, default deny. */
export function parseReleaseAnswer(value: unknown, fail: TaskFieldFail): ReleaseAnswer {
	return value === undefined ? "deny" : oneOf(value, RELEASE_ANSWERS, "on_release", fail);
}
