/**
 * Decisions and effects as a replay records and compares them, taken from one session's audit
 * records. The export and the replay's comparison read them the same way, so they compare like with like.
 */
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import type { DecisionItem, EffectItem } from "./replay-format.js";

const DECISIONS = new Set(["allow", "ask", "deny"]);

/** Decision and effect items in audit order; an ask's answer joins its decision. */
export function auditItems(audit: readonly AuditRecord[]): (DecisionItem | EffectItem)[] {
	const items: (DecisionItem | EffectItem)[] = [];
	const decisions = new Map<string, DecisionItem>();
	for (const record of audit) {
		const d = record.data;
		const call = record.call_id;
		if (call === undefined) continue;
		if (record.kind === "permission.decided" && typeof d.decision === "string" && DECISIONS.has(d.decision)) {
			const item: DecisionItem = { type: "decision", turn: record.turn, call, tool: String(d.tool), decision: d.decision as DecisionItem["decision"] };
			if (typeof d.layer === "string") item.layer = d.layer;
			if (typeof d.rule === "string") item.rule = d.rule;
			decisions.set(call, item);
			items.push(item);
		} else if (record.kind === "tool.invalid") {
			items.push({ type: "decision", turn: record.turn, call, tool: String(d.tool), decision: "invalid" });
		} else if (record.kind === "permission.confirmed") {
			const decided = decisions.get(call);
			if (decided) decided.approval = { approved: d.approved === true, ...(typeof d.response === "string" ? { response: d.response } : {}) };
		} else if (record.kind === "effect" && typeof d.effect === "string" && typeof d.resource === "string") {
			const item: EffectItem = { type: "effect", turn: record.turn, call, effect: d.effect, resource: d.resource };
			if (typeof d.state === "string") item.state = d.state;
			if (d.sha256_before === null || typeof d.sha256_before === "string") item.sha256_before = d.sha256_before;
			if (typeof d.sha256_after === "string") item.sha256_after = d.sha256_after;
			if (typeof d.sha256 === "string") item.sha256 = d.sha256;
			if (d.exit_code === null || typeof d.exit_code === "number") item.exit_code = d.exit_code;
			if (typeof d.status === "number") item.status = d.status;
			items.push(item);
		}
	}
	return items;
}

/** The step of a call id `call_<turn>_<step>_<n>`; undefined for an id of another shape. */
export function callStep(call: string): number | undefined {
	const m = /^call_\d+_(\d+)_\d+$/.exec(call);
	return m ? Number(m[1]) : undefined;
}
