/**
 * The tool-level permission decision (the Agentao paper's Algorithm 2): unknown tool, hardline,
 * read-only mode, run deny rules, host rules (first match), mode rules, tool default. A shell call
 * is decided per sub-command and takes the most severe outcome.
 */
import { defaultProtectedPaths } from "../protected/protected-paths.js";
import { notReadOnlyBecause } from "./command-classes.js";
import { commandReach, type ReachScope } from "./command-reach.js";
import { gitExecConfigChange } from "./git-exec-config.js";
import { gitConfigTarget, guardProtected, protectedTargetOf } from "./protected-decision.js";
import { outsideWorkspace } from "./command-paths.js";
import { type HardlineHit, type HardlineScope, hardlineForCommand, hardlineForPath } from "./hardline.js";
import { matchModeRule, needsSandbox, SANDBOXED_REASON } from "./modes.js";
import { identityScope, untrustedProgram } from "./program-identity.js";
import { decideReach, withReach } from "./reach-policy.js";
import { rulesFor, type ToolRules } from "./rule-index.js";
import { breadthFor, type RuleScope, type RuleTarget, ruleMatches } from "./rules.js";
import { reasonText } from "./shell/reason-text.js";
import { ShellParser } from "./shell/shell-parser.js";
import type { ParsedShell } from "./shell/shell-types.js";
import {
	type Decision,
	type DecisionLayer,
	type DecisionResult,
	PERMISSION_MODES,
	type PermissionRule,
	type PolicyContext,
	type RuleSubject,
	type SubcommandDecision,
	type ToolFacts,
} from "./types.js";
import { canonicalPath } from "./workspace-path.js";

/** Parsed commands kept for repeated calls (the same command is often decided, then re-checked). */
const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const DEFAULT_PROTECTED = defaultProtectedPaths();

interface Step {
	decision: Decision;
	layer: DecisionLayer;
	reason: string;
	rule?: string;
}

/** What the chain needs to know about one (sub-)call besides the tool and its rule target. */
interface CallFacts {
	/** How the call is named in reasons: `"rm -f -r x"`, `write_file src/a.ts`. */
	display: string;
	hardline?: HardlineHit;
	readOnly: boolean;
	/** For a shell sub-command that is not read-only: why. */
	notReadOnly?: string;
	/** Why the program cannot be known in advance; such calls are never auto-allowed. */
	opaque?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === "object" && value !== null && !Array.isArray(value);

function malformed(reason: string): DecisionResult {
	return { decision: "deny", layer: "malformed", reason: reasonText(reason) };
}

/** Used only when the tool definition gave no subject: the conventional argument names. */
function conventionalSubject(tool: ToolFacts, args: Record<string, unknown>): RuleSubject | undefined {
	if (tool.name === "shell") return typeof args.command === "string" ? { kind: "command", value: args.command } : undefined;
	for (const key of ["path", "file_path"]) {
		const value = args[key];
		if (typeof value === "string") return { kind: "path", value };
	}
	return undefined;
}

/** A step's reason is made one line with every other reason of the result, in oneLine. */
function step(decision: Decision, layer: DecisionLayer, reason: string, rule?: string): Step {
	return rule === undefined ? { decision, layer, reason } : { decision, layer, reason, rule };
}

/** Where paths are resolved for hardline and workspace checks; the host's resolvePath, if any, comes along. */
function pathScope(ctx: PolicyContext): HardlineScope {
	const scope: HardlineScope = { workspace: ctx.workspace, home: ctx.home };
	if (ctx.resolvePath) scope.resolvePath = ctx.resolvePath;
	return scope;
}

export class PermissionEngine {
	private constructor(private readonly shell: ShellParser) {}

	/** Loads the shell grammar; `decide` is synchronous afterwards. */
	static async create(): Promise<PermissionEngine> {
		return new PermissionEngine(await ShellParser.create());
	}

	/** The parse the engine decides on when the context brings none, exposed for explanations and tests. */
	parseCommand(command: string): ParsedShell {
		return this.shell.parse(command);
	}

	/**
	 * The decision for one call. Every reason is one line, whichever layer wrote it: a reason quotes
	 * command text and file names, and either may hold line breaks that would draw extra lines in a
	 * prompt or a log.
	 */
	decide(tool: ToolFacts | undefined, args: unknown, ctx: PolicyContext): DecisionResult {
		return oneLine(this.decideCall(tool, args, ctx));
	}

	private decideCall(tool: ToolFacts | undefined, args: unknown, ctx: PolicyContext): DecisionResult {
		if (!tool) return { decision: "deny", layer: "unknown-tool", reason: "the tool is not registered, so the call cannot run" };
		if (!isRecord(args)) return malformed(`arguments for ${tool.name} are not an object`);
		if (!PERMISSION_MODES.includes(ctx.mode)) return malformed(`unknown permission mode "${String(ctx.mode)}"`);
		const subject = tool.subject ?? conventionalSubject(tool, args);
		if (subject !== undefined && typeof subject.value !== "string") {
			return malformed(`the ${subject.kind} argument of ${tool.name} is not a string`);
		}
		if (subject?.kind === "command" || (subject === undefined && tool.name === "shell")) {
			if (subject === undefined || subject.value.trim() === "") return malformed(`${tool.name} call has no command`);
			return this.decideShell(tool, subject.value, ctx);
		}
		let target: RuleTarget | undefined;
		const facts: CallFacts = { display: tool.name, readOnly: tool.readOnly };
		if (subject?.kind === "path") {
			const path = canonicalPath(subject.value, ctx.workspace, ctx.home);
			target = { kind: "path", path };
			facts.display = `${tool.name} ${path.relative ?? path.absolute}`;
		} else if (subject?.kind === "pattern") {
			target = { kind: "pattern", value: subject.value };
			facts.display = `${tool.name} ${subject.value}`;
		}
		if (subject) {
			const hit = hardlineForPath(subject.value, pathScope(ctx));
			if (hit) facts.hardline = hit;
		}
		const found = this.chain(tool, target, ctx, facts);
		// A write there is never auto-allowed: protected-decision.ts.
		const guarded = subject?.kind === "path" && !tool.readOnly ? protectedTargetOf(subject.value, ctx) : undefined;
		return guarded ? { ...guardProtected(found, guarded, tool, target, ctx, facts.display), protected: guarded } : found;
	}

	private decideShell(tool: ToolFacts, command: string, ctx: PolicyContext): DecisionResult {
		// A session's parse is the one its admission, flow and primitive read too (shell-parses.ts).
		const parsed = ctx.parseShell ? ctx.parseShell(command) : this.parseCommand(command);
		if (parsed.commands.length === 0) {
			return malformed(parsed.malformedReason ?? (parsed.malformed ? "the command does not parse and runs nothing recognizable" : "the command is empty"));
		}
		const scope = pathScope(ctx);
		// Where the sandbox confines writes, a target only known at run time is left to it (and /tmp is its own).
		const confined = ctx.sandbox?.available === true && needsSandbox(ctx.mode, ctx.sandbox.required);
		const reachScope: ReachScope = { workspace: scope.workspace, home: scope.home, protectedPaths: ctx.protectedPaths ?? DEFAULT_PROTECTED, privateTmp: confined };
		if (scope.resolvePath) reachScope.resolvePath = scope.resolvePath;
		const identity = identityScope(ctx);
		const subcommands = parsed.commands.map((c): SubcommandDecision => {
			const notSystem = untrustedProgram(c, parsed, identity);
			const notReadOnly = notReadOnlyBecause(c) ?? notSystem;
			// Every field set, absent ones undefined: one shape for every sub-command keeps the chain's reads fast.
			const facts: CallFacts = {
				display: JSON.stringify(c.text),
				readOnly: notReadOnly === undefined,
				notReadOnly,
				hardline: hardlineForCommand(c, parsed, scope),
				opaque: c.opaque ? (c.opaqueReason ?? "its program is only known at run time") : undefined,
			};
			// The sandbox rule needs to know too: a command that names a file outside is not confined by it.
			const outside = facts.readOnly || ctx.sandbox?.available === true ? outsideWorkspace(c, parsed, scope) : undefined;
			const target: RuleTarget = { kind: "command", command: c, outside, notSystemProgram: notSystem };
			const found = withReach(this.chain(tool, target, ctx, facts), decideReach(commandReach(c, parsed, reachScope), ctx.mode, confined));
			// Changing git's executable config is a protected write: protected-decision.ts.
			const gitHit = gitExecConfigChange(c);
			const guarded = gitHit ? gitConfigTarget(gitHit) : undefined;
			const s = guarded ? guardProtected(found, guarded, tool, target, ctx, facts.display) : found;
			const sub: SubcommandDecision = { command: c.text, decision: s.decision, layer: s.layer, reason: s.reason };
			if (s.rule !== undefined) sub.rule = s.rule;
			if (c.opaque) sub.opaque = true;
			if (guarded) sub.protected = guarded;
			return sub;
		});
		let decisive = 0;
		subcommands.forEach((s, i) => {
			const current = subcommands[decisive]!;
			// Among equally severe answers a hardline denial is the one worth naming: no rule or mode could change it.
			const hardlineTie = s.decision === current.decision && s.layer === "hardline" && current.layer !== "hardline";
			if (SEVERITY[s.decision] > SEVERITY[current.decision] || hardlineTie) decisive = i;
		});
		const chosen = subcommands[decisive]!;
		const count = subcommands.length;
		const reason = count === 1 ? chosen.reason : `${chosen.reason} (sub-command ${decisive + 1} of ${count})`;
		const result: DecisionResult = { decision: chosen.decision, layer: chosen.layer, reason, subcommands };
		if (chosen.rule !== undefined) result.rule = chosen.rule;
		if (chosen.protected !== undefined) result.protected = chosen.protected;
		return result;
	}

	/** Algorithm 2 for one call (or one shell sub-command) after the unknown-tool and malformed checks. */
	private chain(tool: ToolFacts, target: RuleTarget | undefined, ctx: PolicyContext, facts: CallFacts): Step {
		const scope: RuleScope = { workspace: ctx.workspace, home: ctx.home };
		const what = facts.display;
		if (facts.hardline) {
			const { rule, detail } = facts.hardline;
			return step("deny", "hardline", `hardline ${rule.name}: ${rule.reason} (${detail})`, `hardline:${rule.name}`);
		}
		if (ctx.mode === "read-only" && !facts.readOnly) {
			const why = facts.notReadOnly === undefined ? "" : ` (${facts.notReadOnly})`;
			return step("deny", "read-only-mode", `read-only mode: ${what} is not read-only${why}`);
		}
		// Only the rules that could match this tool (and program) are tried, in their order: rule-index.ts.
		const runDeny = rulesFor(ctx.runDenyRules, tool.name);
		const host = rulesFor(ctx.hostRules, tool.name);
		if (facts.opaque !== undefined && runDeny.first !== undefined) {
			const rule = runDeny.first;
			return step("deny", "run-deny", `run deny rule ${rule.text} applies to opaque ${what} (${facts.opaque})`, rule.text);
		}
		for (const rule of candidates(runDeny, target)) {
			if (ruleMatches(rule, tool.name, target, scope, "broad")) {
				return step("deny", "run-deny", `run deny rule ${rule.text} matched ${what}`, rule.text);
			}
		}
		if (facts.opaque !== undefined) {
			// An opaque command could be anything, so any host deny rule for this tool applies to it.
			const deny = host.all.find((r) => r.outcome === "deny");
			if (deny) {
				return step("deny", "host-rule", `host rule ${deny.text} (deny, ${deny.source}) applies to opaque ${what} (${facts.opaque})`, deny.text);
			}
		}
		// An ask rule is not applied to an opaque command just because it could be anything: the rest of
		// the chain never allows one, and may deny it (plan mode), which an early ask would hide.
		for (const rule of candidates(host, target)) {
			if (ruleMatches(rule, tool.name, target, scope, breadthFor(rule.outcome))) {
				const found = step(rule.outcome, "host-rule", `host rule ${rule.text} (${rule.outcome}, ${rule.source}) matched ${what}`, rule.text);
				return askWithoutSandbox(this.neverAutoAllowOpaque(found, facts), target, ctx);
			}
		}
		const modeRule = matchModeRule(ctx.mode, tool, target, ctx.sandbox);
		if (modeRule) {
			const where = target?.kind === "command" && target.outside !== undefined && modeRule.when === "read-only-command-outside" ? ` (${target.outside})` : "";
			const how = modeRule.when === "sandboxed-command" ? `: ${what} ${SANDBOXED_REASON}` : ` matched ${what}${where}`;
			const found = step(modeRule.outcome, "mode-rule", `${ctx.mode} mode rule ${modeRule.text}${how}`, modeRule.text);
			return askWithoutSandbox(this.neverAutoAllowOpaque(found, facts), target, ctx);
		}
		const byDefault = tool.requiresConfirmation
			? step("ask", "tool-default", `${tool.name} asks for confirmation by default (${what})`)
			: step("allow", "tool-default", `${tool.name} is allowed by default (${what})`);
		return askWithoutSandbox(this.neverAutoAllowOpaque(byDefault, facts), target, ctx);
	}

	private neverAutoAllowOpaque(found: Step, facts: CallFacts): Step {
		if (found.decision !== "allow" || facts.opaque === undefined) return found;
		return { ...found, decision: "ask", reason: `${found.reason}, but it is opaque (${facts.opaque}), so it needs confirmation` };
	}
}

/**
 * Where no sandbox works, a command that would run confined would run with the user's full rights:
 * it is asked about instead, so that a human, not a rule, lets it out (full-access chose that already).
 */
function askWithoutSandbox(found: Step, target: RuleTarget | undefined, ctx: PolicyContext): Step {
	if (found.decision !== "allow" || target?.kind !== "command" || ctx.sandbox === undefined || ctx.sandbox.available || !needsSandbox(ctx.mode, ctx.sandbox.required)) return found;
	const why = ctx.sandbox.reason ?? "bubblewrap is not available";
	return { ...found, decision: "ask", reason: `no sandbox here (${why}): every command is asked about (${found.reason})` };
}

/** The rules for the tool that could match the target: for a command, those of its program and those of any program. */
function candidates(rules: ToolRules, target: RuleTarget | undefined): readonly PermissionRule[] {
	return target?.kind === "command" ? rules.forProgram(target.command.program) : rules.all;
}

function oneLine(result: DecisionResult): DecisionResult {
	const subs = result.subcommands;
	let subcommands = subs;
	let reason: string | undefined;
	if (subs) {
		let changed = false;
		const escaped = subs.map((sub) => {
			const subReason = reasonText(sub.reason);
			if (subReason === sub.reason) return sub;
			changed = true;
			return { ...sub, reason: subReason };
		});
		if (changed) subcommands = escaped;
		// The result's reason is most often its decisive sub-command's own: escaped once.
		const same = subs.findIndex((sub) => sub.reason === result.reason);
		if (same !== -1) reason = escaped[same]!.reason;
	}
	reason ??= reasonText(result.reason);
	if (reason === result.reason && subcommands === subs) return result;
	return { ...result, reason, ...(subcommands ? { subcommands } : {}) };
}
