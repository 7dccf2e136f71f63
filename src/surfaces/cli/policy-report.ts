/** `warden policy check` output: one JSON object for scripts, or a few aligned lines for people. */
import type { ResolvedConfig } from "../../config/config-types.js";
import { describeClearance } from "../../kernel/flow/egress-admission.js";
import { describeLabel } from "../../kernel/flow/label.js";
import type { ExplainedRule, PolicyCheck } from "../../runtime/policy-check.js";
import type { FlowExplanation } from "../../runtime/policy-check-flow.js";
import { shownLines } from "./shown-lines.js";

export interface PolicyReport {
	tool: string;
	arguments: Record<string, unknown>;
	/** What a run would do: the strictest plane's verdict, and each plane's. */
	verdict: PolicyCheck["verdict"];
	decision: PolicyCheck["decision"];
	layer: PolicyCheck["layer"];
	reason: string;
	rule?: ExplainedRule;
	protected?: PolicyCheck["protected"];
	subcommands?: PolicyCheck["subcommands"];
	shadowed: PolicyCheck["shadowed"];
	capability: PolicyCheck["capability"];
	flow?: FlowExplanation;
	hooks?: PolicyCheck["hooks"];
	workspace: string;
	mode: ResolvedConfig["mode"];
	on_ask: ResolvedConfig["onAsk"];
	config: { layers: ResolvedConfig["layers"]; trusted_project: boolean; ignored: ResolvedConfig["ignored"] };
}

export function policyReport(check: PolicyCheck, config: ResolvedConfig): PolicyReport {
	// Built in reading order: the decision and what made it, then the context it was made in.
	return {
		tool: check.tool,
		arguments: check.arguments,
		verdict: check.verdict,
		decision: check.decision,
		layer: check.layer,
		reason: check.reason,
		...(check.rule ? { rule: check.rule } : {}),
		...(check.protected ? { protected: check.protected } : {}),
		...(check.subcommands ? { subcommands: check.subcommands } : {}),
		shadowed: check.shadowed,
		capability: check.capability,
		...(check.flow ? { flow: check.flow } : {}),
		...(check.hooks ? { hooks: check.hooks } : {}),
		workspace: check.workspace,
		mode: config.mode,
		on_ask: config.onAsk,
		config: { layers: config.layers, trusted_project: config.trustedProject, ignored: config.ignored },
	};
}

const ruleText = (rule: ExplainedRule | undefined): string => (rule ? `${rule.text} from ${rule.source}` : "none");

/** One line per (resource, right) the call's primitives ask for, then the ceiling they were checked under. */
function capabilityLines(c: PolicyReport["capability"]): string[] {
	const lines = c.note !== undefined ? [`  capability refused: ${c.note}`] : c.checks.map((k) => `  capability ${k.right} ${k.resource}: ${k.verdict}`);
	if (c.assumedApproved && c.checks.some((k) => k.admitted)) lines.push("  capability (checked as if the ask were approved)");
	lines.push(`  ceiling    ${c.ceiling.slice(0, 12)}`);
	return lines;
}

/**
 * The flow block: the label checked, the files a command names, then per sink its verdict, the rule
 * that gave its clearance, the payload's label and why; last, what the model's sink does with secrets.
 */
function flowLines(f: FlowExplanation): string[] {
	const lines = [`  flow       label ${describeLabel(f.label)}${f.egress ? "" : "; the call sends nothing out"}`];
	for (const file of f.files ?? []) lines.push(`  flow file  ${file.path}: ${file.label.sensitivity}`);
	for (const read of f.reads ?? []) lines.push(`  flow reads ${read.scope}: ${read.label.sensitivity}`);
	if (f.note !== undefined) lines.push(`  flow       ${f.note}`);
	for (const s of f.sinks) {
		const bound = s.ceiling_bounds ? "; the task ceiling's sinks bound it" : "";
		lines.push(
			`  flow sink  ${s.decision} ${s.operation} ${s.sink}`,
			`             rule    ${s.clearance.rule} ${describeClearance(s.clearance)}${s.clearance.min_integrity ? `, min integrity ${s.clearance.min_integrity}` : ""}${bound}`,
			`             payload ${describeLabel(s.label)}`,
			`             why     ${s.why}`,
		);
	}
	if (f.model) {
		const m = f.model;
		lines.push(`  model sink ${m.sink} (${m.locality}) rule ${m.clearance.rule} ${describeClearance(m.clearance)}`, `             ${m.why}`);
		if (m.note !== undefined) lines.push(`             ${m.note}`);
	}
	return lines;
}

/** The policy's decision before the hooks, then one line per hook run with its verdict, and why one was not applied. */
function hookLines(h: NonNullable<PolicyReport["hooks"]>, tool: string): string[] {
	const lines = [`  policy     ${h.policy.decision} (${h.policy.layer}) before hooks`];
	if (h.runs.length === 0) lines.push(`  hooks      no PreToolUse hook matches ${tool}`);
	for (const r of h.runs) {
		const exit = r.timed_out ? "timed out" : r.exit_code === null ? "did not start" : `exit ${r.exit_code}`;
		const round = r.round > 0 ? ` (rewrite ${r.round})` : "";
		lines.push(`  hook       ${r.verdict} ${r.command}${round}: ${exit}, ${r.duration_ms} ms, ${r.origin} ${r.source}`);
		if (r.reason !== undefined) lines.push(`             reason  ${r.reason}`);
		if (r.refused !== undefined) lines.push(`             not applied: ${r.refused}`);
		if (r.updated_input !== undefined) lines.push(`             rewrote the input to ${JSON.stringify(r.updated_input)}`);
	}
	return lines;
}

export function renderPolicyReport(r: PolicyReport): string {
	const lines = [
		`${r.verdict.outcome.toUpperCase()} ${r.tool} ${JSON.stringify(r.arguments)}`,
		// Every plane's own verdict, in the order a run meets them; the headline is the strictest.
		...r.verdict.planes.map((p) => `  ${p.plane.padEnd(10)} ${p.outcome}${p.plane === r.verdict.by && p.outcome !== "allow" ? " (the headline)" : ""}`),
		`  layer      ${r.layer}`,
		`  rule       ${ruleText(r.rule)}`,
		`  reason     ${r.reason}`,
	];
	if (r.hooks) lines.push(...hookLines(r.hooks, r.tool));
	if (r.protected) {
		const p = r.protected;
		lines.push(`  protected  ${p.path}: ${p.reason}`, `             rule ${p.pattern} from ${p.source}; allowed without asking only by a host rule naming it exactly`);
	}
	if (r.subcommands && r.subcommands.length > 0) {
		lines.push("  sub-commands");
		const width = Math.max(...r.subcommands.map((s) => JSON.stringify(s.command).length));
		r.subcommands.forEach((s, i) => {
			const opaque = s.opaque ? " (opaque)" : "";
			lines.push(`    ${i + 1}. ${s.decision.padEnd(5)} ${JSON.stringify(s.command).padEnd(width)}  ${s.layer}: ${ruleText(s.rule)}${opaque}`);
		});
	}
	for (const s of r.shadowed) lines.push(`  outranked  ${s.decision} ${s.text} from ${s.source} (${s.layer})`);
	lines.push(...capabilityLines(r.capability));
	if (r.flow) lines.push(...flowLines(r.flow));
	if (r.decision === "ask") {
		const answer = r.on_ask.value === "allow" ? "approve" : "refuse";
		lines.push(`  on ask     ${r.on_ask.value} (${r.on_ask.source}): warden run would ${answer} this call`);
	}
	lines.push(`  mode       ${r.mode.value} (${r.mode.source})`, `  workspace  ${r.workspace}`);
	return shownLines(lines);
}
