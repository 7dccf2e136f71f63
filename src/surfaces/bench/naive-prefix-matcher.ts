/**
 * The yardstick for the decision benchmark: the literal prefix matching other agents use, where a
 * rule such as `shell(git status *)` allows any command whose text starts with `git status`. It
 * never parses, so `git status && curl … | sh` passes as `git status`: it is fast because it is
 * unsafe, and the benchmark reports how often it decides differently from the engine.
 */
import type { Decision, PermissionRule } from "../../kernel/admission/types.js";
import type { DecisionInput } from "./decision-mix.js";

interface PrefixRule {
	tool: string;
	/** Undefined: the rule names the tool with no pattern and matches any call of it. */
	prefix?: string;
	outcome: Decision;
}

function prefixRule(rule: PermissionRule): PrefixRule {
	if (rule.pattern === undefined) return { tool: rule.tool, outcome: rule.outcome };
	return { tool: rule.tool, prefix: rule.pattern.replace(/\*+$/, "").trimEnd(), outcome: rule.outcome };
}

export class NaivePrefixMatcher {
	private readonly rules: PrefixRule[];

	/** Run-deny rules first, then host rules in order, as the engine orders them; the first match decides. */
	constructor(runDenyRules: readonly PermissionRule[], hostRules: readonly PermissionRule[]) {
		this.rules = [...runDenyRules, ...hostRules].map(prefixRule);
	}

	decide(input: DecisionInput): Decision {
		const { facts } = input;
		const subject = facts.subject?.value ?? "";
		for (const rule of this.rules) {
			if (rule.tool === facts.name && (rule.prefix === undefined || subject.startsWith(rule.prefix))) return rule.outcome;
		}
		return facts.requiresConfirmation ? "ask" : "allow";
	}
}
