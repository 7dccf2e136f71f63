/**
 * Egress admission for one sink: the task ceiling's sinks, the sink's integrity floor, then the
 * label's sensitivity against what the sink clears and what a human may release. Pure: asking
 * for the release, recording and throwing are the caller's job.
 */
import { patternMatches } from "../authority/resource-pattern.js";
import type { TaskCeiling } from "../authority/task-ceiling.js";
import type { FlowVerdict, SinkClearance } from "./flow-types.js";
import { atMost, describeSources, type Label } from "./label.js";

/** `secret data (from file .env, url https://x/)`: the data's level and where it came from, one line. */
export function describeData(l: Label, level: string = l.sensitivity): string {
	return `${level} data${describeSources(l)}`;
}

/** `(untrusted, up to internal)` or `(trusted, up to internal, release up to secret)`. */
export function describeClearance(c: SinkClearance): string {
	return `(${c.trust}, up to ${c.max}${c.release !== undefined ? `, release up to ${c.release}` : ""})`;
}

function kindOf(sink: string): string {
	const colon = sink.indexOf(":");
	return colon < 0 ? sink : sink.slice(0, colon);
}

function ceilingAdmits(patterns: readonly string[], sink: string): boolean {
	return patterns.some((p) => {
		try {
			return patternMatches(p, sink);
		} catch {
			// A pattern Warden cannot read admits nothing.
			return false;
		}
	});
}

export function flowVerdict(clearance: SinkClearance, label: Label, ceiling: TaskCeiling): FlowVerdict {
	const { sink } = clearance;
	const kind = kindOf(sink);
	// The ceiling bounds a kind of sink only when it names that kind, as `effects` does for llm: and human:.
	const bounded = ceiling.manifest.sinks.filter((p) => kindOf(p) === kind);
	if (bounded.length > 0 && !ceilingAdmits(bounded, sink)) {
		return { decision: "deny", clearance, label, why: `the task ceiling's sinks do not include ${sink} (it allows ${bounded.join(", ")})` };
	}
	if (clearance.min_integrity === "trusted" && label.integrity === "untrusted") {
		return { decision: "deny", clearance, label, why: `${describeData(label, "untrusted")} may not reach ${sink}, which accepts trusted data only` };
	}
	if (atMost(label.sensitivity, clearance.max)) return { decision: "allow", clearance, label };
	const above = `${describeData(label)} is above what ${sink} clears ${describeClearance(clearance)}`;
	if (clearance.release !== undefined && atMost(label.sensitivity, clearance.release)) {
		return { decision: "release", clearance, label, why: `${above}; only an exact release can send it` };
	}
	return { decision: "deny", clearance, label, why: above };
}
