/**
 * One-use authority is reserved in the intent row: a call's operation log writes, with each
 * intent, the approval lease the call redeemed and the counted-grant uses its admissions spent
 * since the previous intent. The intent is committed before anything is dispatched, so once an
 * effect may have happened the use is durable, and a crash followed by a reopen can never hand it
 * out a second time: the runtime reads these rows back when it resumes the session.
 */
import type { CallAuthority } from "../authority/authority.js";
import type { ConsumedAuthority } from "./operation-types.js";
import type { OperationLog } from "./protected-operation.js";

export function consumingLog(log: OperationLog, authority: Pick<CallAuthority, "takeUses"> | undefined, lease: string | undefined): OperationLog {
	return {
		prepare: (intent, beforeImage) => {
			const consumed: ConsumedAuthority = {};
			if (lease !== undefined) consumed.lease = lease;
			const grants = authority?.takeUses() ?? [];
			if (grants.length > 0) consumed.grants = grants;
			return log.prepare(Object.keys(consumed).length > 0 ? { ...intent, consumed } : intent, beforeImage);
		},
		dispatched: (id) => log.dispatched(id),
		settle: (id, state, outcome, effect) => log.settle(id, state, outcome, effect),
	};
}
