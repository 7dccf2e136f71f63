/** How flow decisions ride on an effect's own record: the sink, the label's levels and sources, and any release. */
import type { FlowDecisionRecord } from "./flow-types.js";

export function flowEvidence(records: readonly FlowDecisionRecord[]): { flow?: Record<string, unknown>[] } {
	if (records.length === 0) return {};
	return {
		flow: records.map((r) => ({
			sink: r.sink,
			decision: r.decision,
			label: r.label,
			clearance: r.clearance.rule,
			...(r.release_id === undefined ? {} : { release_id: r.release_id }),
		})),
	};
}
