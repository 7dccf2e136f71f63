/**
 * Which memory records an undo forgets, decided from the audit alone: each `memory.write` effect of
 * the target (its sub-agents' included) names the record it wrote and the older records of the same
 * title it marked stale. Undoing it forgets that record and marks those live again, newest write
 * first, so a chain of rewrites unwinds to what was there before the target.
 *
 * A forget is never undone: the audit keeps no record's text (it may be secret), so there is
 * nothing to bring back that would carry the label it was written with. It is refused in one line.
 */
import type { AuditRow, Store } from "../store/store.js";
import { subAgentSessions } from "./undo-plan.js";
import type { RefusedFile } from "./undo-types.js";

export interface PlannedForget {
	/** The record the target wrote. */
	id: string;
	/** `memory:<scope>/<namespace>`, as its write was admitted. */
	resource: string;
	/** The records its write marked stale, to be marked live again. */
	restore: string[];
	/** The call that wrote it, and the seq of that write's effect audit record. */
	written_by: { session: string; call: string; effect_seq: number };
}

export interface MemoryUndoPlan {
	forgets: PlannedForget[];
	refused: RefusedFile[];
	/** `memory record <id>` for a record the target wrote that is already gone. */
	unchanged: string[];
}

/** What a refusal or an "already as before" line names: the record. */
export function memorySubject(id: string): string {
	return `memory record ${id}`;
}

export async function planMemoryUndo(store: Store, target: { session: string; call?: string }): Promise<MemoryUndoPlan> {
	const effects: AuditRow[] = [];
	const own = await store.listAudit({ session: target.session });
	effects.push(...own.filter((r) => target.call === undefined || r.call_id === target.call));
	for (const s of await subAgentSessions(store, target.session, target.call)) effects.push(...(await store.listAudit({ session: s })));
	const memoryEffects = effects.filter((r) => r.kind === "effect" && (r.data.effect === "memory.write" || r.data.effect === "memory.forget")).sort((a, b) => b.seq - a.seq);

	const plan: MemoryUndoPlan = { forgets: [], refused: [], unchanged: [] };
	for (const r of memoryEffects) {
		const id = String(r.data.id);
		const subject = memorySubject(id);
		if (r.data.effect === "memory.forget") {
			plan.refused.push({
				path: subject,
				reason: `${subject} cannot be brought back: ${r.call_id ?? "the host"} forgot it, and Warden keeps no copy of a forgotten record's text or label; not restored`,
			});
			continue;
		}
		const call = r.call_id ?? "";
		const row = await store.memory.get(id);
		if (!row) {
			plan.unchanged.push(subject);
			continue;
		}
		// The audit names the writer; a row claiming another writer is not the one this effect made.
		if (row.written_by_session !== r.session || (row.written_by_call ?? "") !== call) {
			plan.refused.push({ path: subject, reason: `${subject} was not written by ${call} of session ${r.session} (the record says ${row.written_by_call ?? "the host"} of ${row.written_by_session}); not forgotten` });
			continue;
		}
		const superseded = Array.isArray(r.data.superseded) ? r.data.superseded.filter((x): x is string => typeof x === "string") : [];
		plan.forgets.push({ id, resource: String(r.data.resource), restore: superseded, written_by: { session: r.session, call, effect_seq: r.seq } });
	}
	return plan;
}
