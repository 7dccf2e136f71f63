/** `warden explain`'s text form: one call's operation tree as indented lines, the verdict last. */
import { type CallExplanation, isMissing } from "../../runtime/explain.js";
import { contextLine } from "./explain-model-render.js";
import { clipped, contentLines, shownLines } from "./shown-lines.js";

/** A diff longer than this many lines is cut: the full one is in `warden audit list --json`. */
const DIFF_LINES = 40;

function refs(event?: number, seq?: number): string {
	const parts = [event === undefined ? undefined : `event #${event}`, seq === undefined ? undefined : `audit #${seq}`].filter((p) => p !== undefined);
	return parts.length ? ` [${parts.join(", ")}]` : "";
}

function clip(text: string, max = 160): string {
	return clipped(text.trim(), max);
}

/** The tree as a person reads it: its lines through the display rule. */
export function shownExplanation(t: CallExplanation): string {
	return shownLines(explanationLines(t));
}

/** The tree's lines as written, before the display rule (a surface that draws them applies its own). */
export function renderExplanation(t: CallExplanation): string {
	return `${explanationLines(t).join("\n")}\n`;
}

/** The tree as indented lines, the completeness verdict last; a value's own newlines stay in its line. */
export function explanationLines(t: CallExplanation): string[] {
	const lines: string[] = [];
	const add = (depth: number, text: string) => lines.push(`${"  ".repeat(depth)}${text}`);
	add(0, `call ${t.call}${t.tool ? ` ${t.tool}` : ""} · session ${t.session} · turn ${t.turn} step ${t.step}${refs(t.proposed?.event)}`);
	if (t.resolved_from) add(1, `resolved from audit #${t.resolved_from.audit_seq} (${t.resolved_from.kind})`);
	if (t.arguments !== undefined) add(1, `arguments ${clip(JSON.stringify(t.arguments))}`);

	if (isMissing(t.proposedBy)) add(1, `proposed by: MISSING (${t.proposedBy.missing})`);
	else if ("host" in t.proposedBy) add(1, `proposed by the host: ${t.proposedBy.host} (no model call)`);
	else {
		const m = t.proposedBy;
		add(1, `proposed by model call ${m.spec ?? "?"} (turn ${m.turn} step ${m.step}${m.outcome ? `, ${m.outcome}` : ""}${m.tool_calls === undefined ? "" : `, ${m.tool_calls} tool call(s)`})${refs(m.event, m.audit_seq)}`);
		if (m.text) add(2, `said: ${clip(m.text)}`);
		if (m.context) add(2, contextLine(m.context));
	}

	if (t.decision === undefined) add(1, "decision: none (the proposal was invalid)");
	else if (isMissing(t.decision)) add(1, `decision: MISSING (${t.decision.missing})`);
	else {
		const d = t.decision;
		add(1, `decision ${d.decision} by layer ${d.layer}${d.rule ? `, rule ${d.rule}` : ""}${d.mode ? `, mode ${d.mode}` : ""}${refs(d.event, d.audit_seq)}`);
		add(2, `reason: ${clip(d.reason)}`);
		if (d.ceiling) add(2, `ceiling ${d.ceiling.slice(0, 16)}…`);
	}

	if (t.approval !== undefined) {
		if (isMissing(t.approval)) add(1, `approval: MISSING (${t.approval.missing})`);
		else {
			const a = t.approval;
			add(1, `approval ${a.approved ? "granted" : "refused"} by ${a.by}${a.response ? ` (${a.response})` : ""}${refs(a.event, a.audit_seq)}`);
			if (a.lease) add(2, `lease ${a.lease}${a.granted_seq ? ` granted #${a.granted_seq}` : ""}${a.consumed_seq ? `, consumed #${a.consumed_seq}` : ""}`);
			if (a.invalid) add(2, `lease refused at dispatch #${a.invalid.audit_seq}: ${clip(a.invalid.reason)}`);
			if (a.rule_ids?.length) add(2, `persisted rules ${a.rule_ids.join(", ")}`);
		}
	}

	if (t.admittedBy.length > 0) {
		// A denial's rule and layer are what refused it, not what let it through.
		const denied = t.decision !== undefined && !isMissing(t.decision) && t.decision.decision === "deny";
		add(1, denied ? "refused by" : "admitted by");
		for (const link of t.admittedBy) add(2, admission(link));
	}

	if (t.effects.length > 0) add(1, "effects");
	for (const e of t.effects) {
		const extra = [e.exit_code === undefined ? undefined : `exit ${e.exit_code}`, e.status === undefined ? undefined : `status ${e.status}`, e.outcome].filter((x) => x !== undefined);
		add(2, `${e.kind} ${e.resource}${extra.length ? ` (${extra.join(", ")})` : ""}${refs(e.event, e.audit_seq)}`);
		for (const f of e.flow ?? []) add(3, `flow ${f.decision} to ${f.sink}${f.clearance ? ` (${f.clearance})` : ""}${f.release_id ? ` release ${f.release_id}` : ""}`);
		if (e.diff) {
			const diff = contentLines(e.diff);
			for (const line of diff.slice(0, DIFF_LINES)) add(3, `| ${line}`);
			if (diff.length > DIFF_LINES) add(3, `| … ${diff.length - DIFF_LINES} more line(s)`);
		}
	}

	if (t.syscalls.length > 0) add(1, "syscalls (a JIT tool's, each through this call's own primitives)");
	for (const c of t.syscalls) add(2, `${c.syscall}: ${c.outcome}${c.error ? ` — ${clip(c.error, 120)}` : ""}${refs(c.event, c.audit_seq)}`);
	if (t.flow.length > 0) add(1, "flow decisions");
	for (const f of t.flow) add(2, `${f.operation} to ${f.sink}: ${f.decision}${f.release_id ? ` (release ${f.release_id})` : ""} — ${clip(f.reason, 120)}${refs(f.event, f.audit_seq)}`);

	for (const b of t.budget) add(1, `budget exhausted: ${b.scope} ${b.counter} ${b.used}+${b.requested} > ${b.limit}${refs(b.event, b.audit_seq)}`);

	if (t.child) {
		const c = t.child;
		add(1, `sub-agent session ${c.session}${c.status ? ` · ${c.status}` : ""}${c.result_used ? ` · result ${c.result_used}` : ""}${refs(c.started_event, c.started_seq)}`);
		if (c.calls.length) add(2, `its calls: ${c.calls.join(", ")} (warden explain <call> --session ${c.session})`);
	}

	if (isMissing(t.outcome)) add(1, `outcome: MISSING (${t.outcome.missing})`);
	else {
		const o = t.outcome;
		add(1, `outcome ${o.status}${o.duration_ms === undefined ? "" : ` in ${o.duration_ms} ms`}${o.detail ? `: ${clip(o.detail)}` : ""}${refs(o.event, o.audit_seq)}`);
	}

	if (t.complete) add(0, "evidence complete");
	else {
		add(0, `evidence INCOMPLETE: ${t.missing.length} missing link(s)`);
		for (const m of t.missing) add(1, `- ${m}`);
	}
	return lines;
}

function admission(link: CallExplanation["admittedBy"][number]): string {
	switch (link.kind) {
		case "layer":
			return `layer ${link.layer} (${link.decision})`;
		case "rule":
			return `rule ${link.rule}`;
		case "ceiling":
			return `ceiling ${link.hash.slice(0, 16)}…`;
		case "lease":
			return `lease ${link.lease}${link.audit_seq === undefined ? "" : ` (consumed #${link.audit_seq})`}`;
		case "approved_rule":
			return `approved rule ${link.rule_id}${link.audit_seq === undefined ? "" : ` (added #${link.audit_seq})`}`;
		case "release":
			return `release ${link.release_id} to ${link.sink}${link.audit_seq === undefined ? "" : ` (#${link.audit_seq})`}`;
		case "capability_refused":
			return `capability REFUSED: ${link.right} on ${link.resource}${link.grant ? ` (grant ${link.grant})` : ""}: ${clip(link.reason, 120)} [audit #${link.audit_seq}]`;
		case "protected_refused":
			return `protected path REFUSED: ${link.right} ${link.path} (${link.pattern} from ${link.source}): ${clip(link.reason, 120)} [audit #${link.audit_seq}]`;
	}
}
