/**
 * Explains the decision a session would make for one tool call, without running anything: the
 * same policy (session-policy.ts), the same validation and the same decision (decide-call.ts) as
 * the turn loop, plus the source of each rule that decided and the rules that matched but lost.
 */
import { PermissionEngine } from "../kernel/admission/permission-engine.js";
import { identityScope } from "../kernel/admission/program-identity.js";
import { ShellParser } from "../kernel/admission/shell/shell-parser.js";
import { ShellParses } from "../kernel/admission/shell/shell-parses.js";
import type {
	Decision,
	DecisionLayer,
	DecisionResult,
	PermissionMode,
	PermissionRule,
	PolicyContext,
	ProtectedTarget,
	SubcommandDecision,
} from "../kernel/admission/types.js";
import type { ApprovedRule } from "../kernel/approval/approval-types.js";
import type { FlowSettings } from "../kernel/flow/flow-types.js";
import { toPermissionRule } from "../kernel/approval/approved-rules.js";
import { validateArguments } from "../tools/argument-validator.js";
import { MEMORY_TOOLS } from "../tools/memory-tools.js";
import { builtinTools, ToolRegistry } from "../tools/registry.js";
import type { ToolDefinition } from "../tools/tool.js";
import { type CapabilityVerdict, capabilityVerdict } from "./capability-verdict.js";
import { type Decider, decideToolCall } from "./decide-call.js";
import { type RunVerdict, runVerdict } from "./policy-verdict.js";
import { explainFlow, type FlowExplanation, type FlowLabelInput } from "./policy-check-flow.js";
import { explainHooks, type HooksExplanation } from "./policy-check-hooks.js";
import type { HookHandler } from "./hooks/hook-types.js";
import { withApprovedRules } from "./session-approvals.js";
import { sessionAuthority, sessionCeiling } from "./session-authority.js";
import type { ModelProfiles } from "../models/model-profile.js";
import type { SessionOptions } from "./session-options.js";
import { type PolicyOptions, sessionPolicy } from "./session-policy.js";

export interface PolicyCheckRequest extends PolicyOptions, Pick<SessionOptions, "grants" | "ceiling"> {
	tool: string;
	arguments: unknown;
	/**
	 * Persisted "always" answers, as a session would load them; only those of the call's workspace
	 * that are not revoked count. Runtime.checkPolicy reads them from its store when omitted.
	 */
	approvedRules?: readonly ApprovedRule[];
	/** The flow settings a session would get (the resolved config's `flow`, as `warden run` passes it). */
	flow?: FlowSettings;
	/** The label of the data to check against each sink; default: the context a session starts with (internal, trusted). */
	label?: FlowLabelInput;
	/** The session's model spec: its sink (`llm:<profile>`) is explained when given. */
	model?: string;
	/** The config's named model profiles, so `model` may name one as a run's would. */
	modelProfiles?: ModelProfiles;
	/**
	 * The hook handlers a session would get (the config resolves them: the project's only in a
	 * trusted workspace): the PreToolUse ones that match the tool run, and their verdicts count.
	 */
	hooks?: readonly HookHandler[];
}

/** A rule with the layer or file it came from. */
export interface ExplainedRule {
	text: string;
	source: string;
}

export interface ExplainedSubcommand extends Omit<SubcommandDecision, "rule"> {
	rule?: ExplainedRule;
	/** Configured rules that matched this sub-command but did not decide it. */
	shadowed: ShadowedRule[];
}

/** A configured rule that matched the call but did not decide it, and what it would have said. */
export interface ShadowedRule extends ExplainedRule {
	decision: Decision;
	layer: DecisionLayer;
}

export interface PolicyCheck {
	valid: true;
	tool: string;
	arguments: Record<string, unknown>;
	/** Real path of the workspace. */
	workspace: string;
	mode: PermissionMode;
	decision: Decision;
	layer: DecisionLayer;
	reason: string;
	rule?: ExplainedRule;
	subcommands?: ExplainedSubcommand[];
	/**
	 * Configured rules that matched the call (for shell: the deciding sub-command) but did not decide
	 * it, in order: each would decide if the deciding rule and those listed before it were removed.
	 */
	shadowed: ShadowedRule[];
	/**
	 * The protected path (or git config key) the call writes: the registry rule, its reason and
	 * where it came from. Present whether or not it decided (a denial from an earlier layer wins).
	 */
	protected?: ProtectedTarget;
	/** What the capability layer would say at the call's primitives, under the session's grants and ceiling. */
	capability: CapabilityVerdict;
	/**
	 * Egress admission for the call's sinks and the model's sink; absent when the call sends nothing
	 * out and no model is given.
	 */
	flow?: FlowExplanation;
	/** What a run would do: the strictest of decision, capability and flow, with each plane's verdict. */
	verdict: RunVerdict;
	/**
	 * The PreToolUse hooks' part: the policy's decision before them and each hook's verdict; the
	 * decision above is theirs combined. Absent when no PreToolUse hook is configured (or --no-hooks).
	 */
	hooks?: HooksExplanation;
}

/** An unknown tool or arguments the tool's schema refuses: a run would record `tool.invalid`. */
export interface InvalidToolCall {
	valid: false;
	tool: string;
	error: string;
}

export type PolicyCheckResult = PolicyCheck | InvalidToolCall;

const RULE_LAYERS: readonly DecisionLayer[] = ["run-deny", "host-rule"];
/** Enough to list every rule a realistic config has matching one call. */
const MAX_SHADOWED = 32;

/** The configured rule a decision names: the first with its text that could have produced it. */
function decidingRule(policy: PolicyContext, layer: DecisionLayer, text: string | undefined, decision: Decision): PermissionRule | undefined {
	if (text === undefined) return undefined;
	if (layer === "run-deny") return policy.runDenyRules.find((r) => r.text === text);
	if (layer !== "host-rule") return undefined;
	// An allow rule that matched an opaque command comes out as ask.
	return policy.hostRules.find((r) => r.text === text && (r.outcome === decision || (r.outcome === "allow" && decision === "ask")));
}

function explainRule(policy: PolicyContext, layer: DecisionLayer, text: string | undefined, decision: Decision, guarded?: ProtectedTarget): ExplainedRule | undefined {
	if (text === undefined) return undefined;
	switch (layer) {
		case "protected-path":
			return guarded ? { text, source: guarded.source } : undefined;
		case "hardline":
			return { text, source: "built-in hardline rules" };
		case "mode-rule":
			return { text, source: `mode:${policy.mode}` };
		default: {
			const rule = decidingRule(policy, layer, text, decision);
			return rule ? { text, source: rule.source } : undefined;
		}
	}
}

export async function explainToolCall(
	decider: Decider,
	tools: ToolRegistry,
	env: NodeJS.ProcessEnv,
	request: PolicyCheckRequest,
	shell: ShellParser,
): Promise<PolicyCheckResult> {
	const policy = await sessionPolicy(request, env);
	// One parse of the command for the decision, the capability verdict and the flow explanation, as in a session.
	const parses = new ShellParses(shell);
	policy.parseShell = (command) => parses.parse(command);
	const approved = (request.approvedRules ?? []).filter((r) => r.workspace === policy.workspace && !r.revoked_at);
	policy.hostRules = withApprovedRules(policy.hostRules, approved.map(toPermissionRule));
	// Built before the tool is looked up, so a bad grant or ceiling fails as it would open a session.
	const ceiling = sessionCeiling(request);
	const authority = sessionAuthority(request, policy.mode, ceiling, "policy-check", parses, identityScope(policy));
	const tool: ToolDefinition | undefined = tools.get(request.tool);
	if (!tool) {
		return { valid: false, tool: request.tool, error: `unknown tool "${request.tool}"; available: ${tools.list().map((t) => t.name).join(", ")}` };
	}
	const validated = validateArguments(tool, request.arguments);
	if (!validated.ok) return { valid: false, tool: tool.name, error: validated.error };
	// The hooks a session would run, deciding with the policy; a rewrite is what the rest explains.
	const withHooks = request.hooks?.length
		? await explainHooks({
				handlers: request.hooks,
				tool: tool.name,
				args: validated.value,
				workspace: policy.workspace,
				mode: policy.mode,
				env,
				decide: (a) => decideToolCall(decider, policy, tool, a),
				validate: (raw) => validateArguments(tool, raw),
			})
		: undefined;
	const args = withHooks?.args ?? validated.value;
	const policyDecided = await decideToolCall(decider, policy, tool, args);
	const decided = withHooks?.decision ?? policyDecided;
	const shadowedOf = (first: Step, pick: (r: DecisionResult) => Step | undefined) => shadowedRules(decider, policy, tool, args, first, pick);
	// An ask grant admits only an approved call; the explanation assumes the ask is approved.
	const assumeApproved = decided.decision === "ask" && ceiling.manifest.approval !== "deny";
	const capability = await capabilityVerdict(authority, tool, args, policy.workspace, { approved: assumeApproved });
	const flow = await explainFlow({
		tool: tool.name,
		args,
		workspace: policy.workspace,
		ceiling,
		settings: request.flow ?? {},
		...(request.label ? { label: request.label } : {}),
		...(request.model !== undefined ? { model: request.model } : {}),
		...(request.modelProfiles ? { modelProfiles: request.modelProfiles } : {}),
		env,
		parseShell: (command) => parses.parse(command),
	});

	const check: PolicyCheck = {
		valid: true,
		tool: tool.name,
		arguments: args,
		workspace: policy.workspace,
		mode: policy.mode,
		decision: decided.decision,
		layer: decided.layer,
		reason: decided.reason,
		shadowed: [],
		capability,
		...(flow ? { flow } : {}),
		...(decided.protected ? { protected: decided.protected } : {}),
		verdict: runVerdict({ decision: decided.decision, reason: decided.reason, capability, flow }),
		...(withHooks ? { hooks: withHooks.hooks } : {}),
	};
	const rule = explainRule(policy, decided.layer, decided.rule, decided.decision, decided.protected);
	if (rule) check.rule = rule;
	// The rules behind the policy's own decision, whether or not a hook made it stricter.
	if (!policyDecided.subcommands) {
		check.shadowed = await shadowedOf(policyDecided, (r) => r);
		return check;
	}
	const subcommands: ExplainedSubcommand[] = [];
	for (const [i, { rule: text, ...sub }] of policyDecided.subcommands.entries()) {
		const source = explainRule(policy, sub.layer, text, sub.decision, sub.protected);
		const shadowed = await shadowedOf({ ...sub, rule: text }, (r) => r.subcommands?.[i]);
		subcommands.push({ ...sub, ...(source ? { rule: source } : {}), shadowed });
	}
	check.subcommands = subcommands;
	// The engine names the first of the strictest sub-commands; its shadowed rules are the call's.
	const deciding = policyDecided.subcommands.findIndex((s) => s.decision === policyDecided.decision && s.layer === policyDecided.layer && s.rule === policyDecided.rule);
	check.shadowed = subcommands[deciding]?.shadowed ?? [];
	return check;
}

type Step = Pick<SubcommandDecision, "decision" | "layer" | "rule">;

/**
 * Takes the deciding configured rule away and decides again, for as long as a configured rule
 * decides; `pick` selects the same (sub-)call from each new decision.
 */
async function shadowedRules(
	decider: Decider,
	policy: PolicyContext,
	tool: ToolDefinition,
	args: Record<string, unknown>,
	first: Step,
	pick: (result: DecisionResult) => Step | undefined,
): Promise<ShadowedRule[]> {
	const shadowed: ShadowedRule[] = [];
	let ctx = policy;
	let current: Step | undefined = first;
	while (current && shadowed.length < MAX_SHADOWED && RULE_LAYERS.includes(current.layer)) {
		const rule = decidingRule(ctx, current.layer, current.rule, current.decision);
		if (!rule) break;
		ctx = { ...ctx, runDenyRules: ctx.runDenyRules.filter((r) => r !== rule), hostRules: ctx.hostRules.filter((r) => r !== rule) };
		current = pick(await decideToolCall(decider, ctx, tool, args));
		const next = current && decidingRule(ctx, current.layer, current.rule, current.decision);
		if (!current || !next) break;
		shadowed.push({ text: next.text, source: next.source, decision: current.decision, layer: current.layer });
	}
	return shadowed;
}

/** For hosts without a Runtime (e.g. `warden policy check`): no state directory is opened. */
export async function checkPolicy(request: PolicyCheckRequest, options: { env?: NodeJS.ProcessEnv } = {}): Promise<PolicyCheckResult> {
	const engine = await PermissionEngine.create();
	return explainToolCall(engine, new ToolRegistry([...builtinTools(), ...MEMORY_TOOLS]), options.env ?? process.env, request, await ShellParser.create());
}
