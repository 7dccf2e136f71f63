/**
 * What of an untrusted project's `flow:` section is kept: only what tightens. Its sink rules are
 * matched before the user's, so a rule is kept only when it cannot clear more than it would have
 * been cleared without it: an untrusted sink or a lowered clearance (public or internal, no
 * release), never a release above internal (what a sink no rule names clears), and no looser than
 * any user rule it could shadow. Whether two sink patterns can match
 * the same sink is judged soundly (say "may overlap" unless their literal ends rule it out).
 */
import type { SinkRuleSpec } from "../kernel/flow/flow-types.js";
import { atMost } from "../kernel/flow/label.js";
import type { FlowConfigData } from "./config-types.js";

export interface FlowTightening {
	/** The kept section; undefined when nothing of it is kept. */
	flow?: FlowConfigData;
	/** Each dropped item and why (without the "not trusted" reason, which the caller adds). */
	dropped: { item: string; why: string }[];
}

export function tightenUntrustedFlow(flow: FlowConfigData, userSinks: readonly SinkRuleSpec[]): FlowTightening {
	const dropped: FlowTightening["dropped"] = [];
	const kept: FlowConfigData = {};
	const sinks: SinkRuleSpec[] = [];
	for (const [i, rule] of (flow.sinks ?? []).entries()) {
		const why = loosening(rule, userSinks);
		if (why === undefined) sinks.push(rule);
		else dropped.push({ item: `flow.sinks[${i}] ${rule.sink}`, why });
	}
	if (sinks.length > 0) kept.sinks = sinks;
	if (flow.secret_files?.length) kept.secret_files = [...flow.secret_files];
	if (flow.redact_model_context === "always") kept.redact_model_context = "always";
	else if (flow.redact_model_context !== undefined) {
		dropped.push({ item: `flow.redact_model_context: ${flow.redact_model_context}`, why: "redacting the model's context less than always loosens flow" });
	}
	return { ...(Object.keys(kept).length > 0 ? { flow: kept } : {}), dropped };
}

/** Why the rule could clear something that would otherwise not be cleared; undefined when it only tightens. */
function loosening(rule: SinkRuleSpec, userSinks: readonly SinkRuleSpec[]): string | undefined {
	if (rule.trust === "trusted" && (!atMost(rule.max, "internal") || rule.release !== undefined)) {
		return "a trusted sink rule that clears secret or allows a release loosens flow";
	}
	// A sink no rule names clears internal with no release: releasing more than that would loosen it.
	if (rule.release !== undefined && !atMost(rule.release, "internal")) return `allowing a release of ${rule.release} data loosens flow`;
	for (const user of userSinks) {
		if (!mayOverlap(rule.sink, user.sink)) continue;
		const how = looserThan(rule, user);
		if (how !== undefined) return `it would be matched before the user's rule for ${user.sink} and ${how}`;
	}
	return undefined;
}

/** How `rule` clears more than `than`; undefined when it is at least as tight in every respect. */
export function looserThan(rule: SinkRuleSpec, than: SinkRuleSpec): string | undefined {
	if (!atMost(rule.max, than.max)) return `clears ${rule.max} where that rule clears ${than.max}`;
	const releasable = rule.release ?? rule.max;
	const thanReleasable = than.release ?? than.max;
	if (!atMost(releasable, thanReleasable)) return `allows releasing ${releasable} where that rule allows ${thanReleasable}`;
	if (than.min_integrity === "trusted" && rule.min_integrity !== "trusted") return "accepts untrusted data that rule refuses";
	if (than.trust === "untrusted" && rule.trust === "trusted") return "calls trusted a sink that rule calls untrusted";
	return undefined;
}

/**
 * False only when no sink can match both patterns: a sink matching both starts with both literal
 * prefixes and ends with both literal suffixes, so one of each pair must extend the other.
 */
export function mayOverlap(a: string, b: string): boolean {
	const [pa, sa] = literalEnds(a);
	const [pb, sb] = literalEnds(b);
	const prefixesAgree = pa.startsWith(pb) || pb.startsWith(pa);
	const suffixesAgree = sa.endsWith(sb) || sb.endsWith(sa);
	return prefixesAgree && suffixesAgree;
}

/** The text before the first wildcard and after the last; a pattern without one is all literal. */
function literalEnds(pattern: string): [prefix: string, suffix: string] {
	// `fs:dir/**` also matches `fs:dir` itself: its literal prefix is only `fs:dir`.
	const text = pattern.startsWith("fs:") && pattern.endsWith("/**") ? `${pattern.slice(0, -3)}*` : pattern;
	const first = text.search(/[*?]/);
	if (first === -1) return [text, text];
	const last = Math.max(text.lastIndexOf("*"), text.lastIndexOf("?"));
	return [text.slice(0, first), text.slice(last + 1)];
}
