/** Recorded decisions and effects against a replay's, in order, field by field. */
import type { DecisionItem, EffectItem } from "./replay-format.js";

export interface ReplayMismatch {
	/** The replay file's line of the recorded item, when there is one. */
	line?: number;
	call?: string;
	/** One line: what differs. */
	what: string;
	recorded?: unknown;
	replayed?: unknown;
}

type Evidence = DecisionItem | EffectItem;

const DECISION_FIELDS = ["call", "tool", "decision", "layer", "rule"] as const;
const EFFECT_FIELDS = ["call", "effect", "resource", "state", "sha256_before", "sha256_after", "sha256", "exit_code", "status"] as const;

function fieldsOf(item: Evidence): Record<string, unknown> {
	if (item.type === "decision") {
		const out: Record<string, unknown> = {};
		for (const f of DECISION_FIELDS) out[f] = item[f];
		out.approved = item.approval?.approved;
		return out;
	}
	const out: Record<string, unknown> = {};
	for (const f of EFFECT_FIELDS) out[f] = item[f];
	return out;
}

/** Which item of a call this is: its kind and how many of that kind the call had before it. */
function keyOf(item: Evidence, seen: Map<string, number>): string {
	const base = `${item.type}:${item.call}`;
	const n = seen.get(base) ?? 0;
	seen.set(base, n + 1);
	return `${base}:${n}`;
}

/**
 * Every difference, in recorded order; an empty list is a full match. Items are paired by call id,
 * not by position: calls to different tools in one step run in parallel, so their effects may be
 * recorded in either order.
 */
export function compareEvidence(recorded: readonly { line: number; item: Evidence }[], replayed: readonly Evidence[]): ReplayMismatch[] {
	const mismatches: ReplayMismatch[] = [];
	const seen = new Map<string, number>();
	const byKey = new Map<string, Evidence>();
	for (const p of replayed) byKey.set(keyOf(p, seen), p);
	const recordedSeen = new Map<string, number>();
	for (const r of recorded) {
		const key = keyOf(r.item, recordedSeen);
		const p = byKey.get(key);
		if (p === undefined) {
			mismatches.push({ line: r.line, call: r.item.call, what: `the recorded ${r.item.type} did not happen in the replay`, recorded: r.item });
			continue;
		}
		byKey.delete(key);
		const a = fieldsOf(r.item);
		const b = fieldsOf(p);
		const differing = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
		if (differing.length > 0) {
			const recordedFields = Object.fromEntries(differing.map((k) => [k, a[k] ?? null]));
			const replayedFields = Object.fromEntries(differing.map((k) => [k, b[k] ?? null]));
			mismatches.push({ line: r.line, call: r.item.call, what: `${r.item.type} differs in ${differing.join(", ")}`, recorded: recordedFields, replayed: replayedFields });
		}
	}
	for (const p of byKey.values()) mismatches.push({ call: p.call, what: `the replay made a ${p.type} the recording does not have`, replayed: p });
	return mismatches;
}
