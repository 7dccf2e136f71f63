/**
 * The one-use authority a resumed session already consumed, read back from the intents of its
 * operations and of its sub-agents' (src/kernel/operations/consumed-authority.ts): whatever each
 * operation's outcome, a use an intent recorded stays spent and a lease it recorded stays consumed.
 * Uses no intent carried (a read's) are in the `authority.used` record its call ended with.
 */
import type { GrantUse } from "../kernel/operations/operation-types.js";
import type { Store } from "../store/store.js";
import { consumedOf } from "../kernel/evidence/store-rows.js";

export interface ConsumedBySession {
	grants: GrantUse[];
	leases: string[];
}

export async function consumedBySession(store: Store, session: string): Promise<ConsumedBySession> {
	const out: ConsumedBySession = { grants: [], leases: [] };
	const sessions = await store.listSessions();
	const pending = [session];
	const seen = new Set<string>();
	while (pending.length > 0) {
		const id = pending.pop() as string;
		if (seen.has(id)) continue;
		seen.add(id);
		for (const op of await store.listOperations({ session: id })) {
			const consumed = consumedOf(op);
			if (consumed?.lease !== undefined) out.leases.push(consumed.lease);
			out.grants.push(...(consumed?.grants ?? []));
		}
		for (const record of await store.listAudit({ session: id })) {
			if (record.kind === "authority.used" && Array.isArray(record.data.grants)) out.grants.push(...(record.data.grants as GrantUse[]).filter(isGrantUse));
		}
		// A sub-agent's counted grants share its parent's count: its uses are the parent's too.
		for (const child of sessions) if (child.parent_session === id) pending.push(child.id);
	}
	return out;
}

function isGrantUse(value: unknown): value is GrantUse {
	const use = value as Partial<GrantUse> | null;
	return typeof use === "object" && use !== null && typeof use.holder === "string" && typeof use.grant === "string";
}

/** Uses per grant id, for the session.resumed audit record. */
export function usesByGrant(uses: readonly GrantUse[], holder: string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const use of uses) if (use.holder === holder) counts[use.grant] = (counts[use.grant] ?? 0) + 1;
	return counts;
}
