/**
 * The checks of a `flow:` section that the JSON schema cannot express, so a bad setting fails at
 * load time with the field named, not when a session opens. Sink rules are checked by the kernel's
 * own checkSinkRules, so the config accepts exactly the rules a session will; only the kinds of
 * sink are narrower here (`shell:` names a command, not a place data goes).
 */
import picomatch from "picomatch";
import { FlowConfigError } from "../kernel/flow/flow-errors.js";
import { checkSinkRules } from "../kernel/flow/sink-registry.js";
import type { FlowConfigData } from "./config-types.js";

const SINK_KINDS = ["fs:", "net:", "llm:", "human:"];
const REDACTIONS = ["always", "untrusted", "never"];

/** The first problem with `flow`, as `flow.sinks[1].max: …`; undefined when it is sound. */
export function flowProblem(flow: FlowConfigData): string | undefined {
	for (const [i, rule] of (flow.sinks ?? []).entries()) {
		if (typeof rule?.sink === "string" && !SINK_KINDS.some((kind) => rule.sink.startsWith(kind))) {
			return `flow.sinks[${i}].sink must start with ${SINK_KINDS.join(", ")}, got ${JSON.stringify(rule.sink)}`;
		}
	}
	try {
		checkSinkRules(flow.sinks, "flow.sinks", "config");
	} catch (err) {
		if (!(err instanceof FlowConfigError)) throw err;
		return err.message;
	}
	for (const [i, glob] of (flow.secret_files ?? []).entries()) {
		const problem = secretGlobProblem(glob);
		if (problem !== undefined) return `flow.secret_files[${i}]: ${problem}`;
	}
	if (flow.redact_model_context !== undefined && !REDACTIONS.includes(flow.redact_model_context)) {
		return `flow.redact_model_context must be one of ${REDACTIONS.join(", ")}, got ${JSON.stringify(flow.redact_model_context)}`;
	}
	return undefined;
}

function secretGlobProblem(glob: string): string | undefined {
	if (typeof glob !== "string" || glob === "") return "must be a non-empty glob";
	if (glob.startsWith("/") || /^[A-Za-z]:[\\/]/.test(glob)) return `${JSON.stringify(glob)} must be workspace-relative`;
	if (glob.split("/").includes("..")) return `${JSON.stringify(glob)} must stay inside the workspace (no .. segment)`;
	// A negated glob would name every other file: the list only ever adds secret files.
	if (glob.startsWith("!")) return `${JSON.stringify(glob)} is a negation; secret_files only adds files`;
	try {
		// picomatch answers an uncompilable glob with a regex that matches nothing.
		if (picomatch.makeRe(glob, { dot: true, strictBrackets: true }).source === "$^") return `${JSON.stringify(glob)} is not a valid glob`;
	} catch (err) {
		return `${JSON.stringify(glob)} is not a valid glob (${(err as Error).message})`;
	}
	return undefined;
}
