/**
 * Persisted approvals as permission rules, and the exact rules an "always" answer may persist. A
 * persisted rule names one resource exactly — never a pattern — so answering "always" for one call
 * cannot become a capability over others.
 */
import { parseRule } from "../admission/rules.js";
import type { DecisionResult, PermissionRule } from "../admission/types.js";
import type { ApprovedRule } from "./approval-types.js";
import type { TargetState } from "./target-state.js";

export function approvedRuleSource(id: number): string {
	return `approved rule #${id}`;
}

export function approvedRuleText(rule: Pick<ApprovedRule, "tool" | "pattern">): string {
	return `${rule.tool}(${rule.pattern})`;
}

export function toPermissionRule(rule: ApprovedRule): PermissionRule {
	return parseRule(approvedRuleText(rule), rule.outcome, approvedRuleSource(rule.id));
}

/** Word globs of command patterns. */
const COMMAND_GLOB = /[*?]/;
/** picomatch's special characters in path patterns. */
const PATH_GLOB = /[*?[\]{}()!+@\\]/;

export type RulePatterns = { ok: true; patterns: string[] } | { ok: false; why: string };

/**
 * The exact patterns an "always" answer for this call persists: its path, or each of its
 * sub-commands that asked. An allow is refused where an exact rule cannot be written (a glob character
 * would widen it) or could not admit the call anyway (a program only known at run time).
 */
export function exactRulePatterns(target: TargetState, decision: DecisionResult, outcome: "allow" | "deny"): RulePatterns {
	if (target.kind === "file") {
		if (target.digest === "unresolvable") return { ok: false, why: `the path ${target.resource} does not resolve inside the workspace` };
		if (outcome === "allow" && PATH_GLOB.test(target.resource)) {
			return { ok: false, why: `the path ${target.resource} holds glob characters, so a rule for it would not be exact` };
		}
		return { ok: true, patterns: [target.resource] };
	}
	if (target.kind === "command") {
		// Only the sub-commands that asked: the rest were decided already and need no rule.
		const all = decision.subcommands ?? [];
		const asked = all.filter((s) => s.decision === "ask");
		const subs = asked.length > 0 ? asked : all;
		if (subs.length === 0) return { ok: false, why: "the command has no sub-command a rule could name" };
		const patterns: string[] = [];
		for (const sub of subs) {
			if (outcome === "allow" && sub.opaque) return { ok: false, why: `"${sub.command}" cannot be known before it runs, so no rule can allow it` };
			if (outcome === "allow" && COMMAND_GLOB.test(sub.command)) {
				return { ok: false, why: `"${sub.command}" holds glob characters, so a rule for it would not be exact` };
			}
			if (!patterns.includes(sub.command)) patterns.push(sub.command);
		}
		return { ok: true, patterns };
	}
	return { ok: false, why: "the tool names no path or command a rule could name" };
}
