/**
 * `allowed-tools` narrows, never widens: while a skill that has one is active, a call must be
 * named by one of its entries (for every such active skill: the intersection), and the host's own
 * decision still stands over it. A call an entry does not name is denied; a call it names gets
 * whatever the policy said, so no entry can turn an ask or a deny into an allow.
 */
import { breadthFor, type RuleTarget, ruleMatches } from "../../kernel/admission/rules.js";
import type { DecisionResult, PermissionRule, PolicyContext, RuleSubject, ToolFacts } from "../../kernel/admission/types.js";
import { canonicalPath } from "../../kernel/admission/workspace-path.js";
import type { Decider } from "../decide-call.js";
import type { SessionSkills } from "./session-skills.js";

/** Activating another skill only narrows further, so it stays callable under any allowed-tools. */
const ALWAYS_CALLABLE: ReadonlySet<string> = new Set(["activate_skill"]);

/** Whether one entry names the call. A pattern needs a subject it can judge; a shell command must be named in each of its parts. */
export function entryNames(rule: PermissionRule, tool: ToolFacts, ctx: PolicyContext): boolean {
	const scope = { workspace: ctx.workspace, home: ctx.home };
	const subject: RuleSubject | undefined = tool.subject;
	if (rule.pattern === undefined || subject === undefined) return ruleMatches(rule, tool.name, undefined, scope, "exact");
	if (subject.kind === "command") {
		const parsed = ctx.parseShell?.(subject.value);
		// What does not parse cannot be shown to be inside the entry: not named. An opaque command
		// (a script the entry names) is named as written; what it does is the policy's and the sandbox's to judge.
		if (!parsed || parsed.malformed || parsed.commands.length === 0) return false;
		return parsed.commands.every((command) => ruleMatches(rule, tool.name, { kind: "command", command }, scope, breadthFor("allow")));
	}
	const target: RuleTarget = subject.kind === "path" ? { kind: "path", path: canonicalPath(subject.value, ctx.workspace, ctx.home) } : { kind: "pattern", value: subject.value };
	return ruleMatches(rule, tool.name, target, scope, "exact");
}

/** The first active skill whose allowed-tools does not name the call; undefined when every one does (or none narrows). */
export function narrowedOut(skills: SessionSkills, tool: ToolFacts, ctx: PolicyContext): string | undefined {
	if (ALWAYS_CALLABLE.has(tool.name)) return undefined;
	for (const skill of skills.narrowing()) {
		const allowed = skill.allowedTools;
		if (!allowed) continue;
		if (!allowed.rules.some((rule) => entryNames(rule, tool, ctx))) return skill.name;
	}
	return undefined;
}

/**
 * The session's decider with its active skills' allowed-tools applied after the policy's own answer.
 * `admits: false` for a sub-agent's: it is narrowed by its parent's skills, and activates none of them.
 */
export function narrowedDecider(inner: Decider, skills: SessionSkills, opts: { admits: boolean } = { admits: true }): Decider {
	return {
		decide(tool, args, ctx): DecisionResult {
			const found = inner.decide(tool, args, ctx);
			if (!tool || found.decision === "deny") return found;
			// Calls of the same step are decided before any of them runs: a later one must not slip past the activation.
			if (opts.admits && tool.name === "activate_skill" && tool.subject?.kind === "pattern") skills.noteAdmitted(tool.subject.value);
			const skill = narrowedOut(skills, tool, ctx);
			if (skill === undefined) return found;
			const entries = skills.narrowing().find((s) => s.name === skill)!.allowedTools!.rules.map((r) => r.text);
			// A per-run narrowing, like a run deny rule: nothing later in the chain can lift it.
			return { decision: "deny", layer: "run-deny", reason: `active skill ${skill} allows only ${entries.join(", ")}: ${tool.name} is not among them`, rule: `skill:${skill} allowed-tools` };
		},
	};
}
