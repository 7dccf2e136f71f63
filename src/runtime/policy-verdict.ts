/**
 * The verdict a run would reach for one call: the strictest of the tool-level decision, the
 * capability layer at the call's primitives and the flow plane at its sinks. Each plane can refuse
 * what the others allow, so `warden policy check` heads its report with this, not with the
 * decision alone, and lists every plane's own verdict under it.
 */
import type { CapabilityVerdict } from "./capability-verdict.js";
import type { FlowExplanation } from "./policy-check-flow.js";

export type Plane = "decision" | "capability" | "flow";
/** `release`: only a human's exact one-shot release of that payload would let it through. */
export type RunOutcome = "allow" | "ask" | "release" | "deny";

export interface PlaneVerdict {
	plane: Plane;
	outcome: RunOutcome;
	why: string;
}

export interface RunVerdict {
	outcome: RunOutcome;
	/** The plane whose verdict is the headline (the first of the strictest). */
	by: Plane;
	planes: PlaneVerdict[];
}

/** Strictness: a refusal outranks a release, which outranks an ask, which outranks an allow. */
const RANK: Readonly<Record<RunOutcome, number>> = { allow: 0, ask: 1, release: 2, deny: 3 };

function capabilityPlane(c: CapabilityVerdict): PlaneVerdict {
	if (c.admitted) return { plane: "capability", outcome: "allow", why: c.checks.length === 0 ? "no primitive to check" : "every check admitted" };
	const refused = c.checks.find((k) => !k.admitted);
	return { plane: "capability", outcome: "deny", why: c.note ?? (refused ? `${refused.right} ${refused.resource}: ${refused.verdict}` : "refused") };
}

function flowPlane(f: FlowExplanation): PlaneVerdict {
	const denied = f.sinks.find((s) => s.decision === "deny");
	if (denied) return { plane: "flow", outcome: "deny", why: `${denied.operation} to ${denied.sink}: ${denied.why}` };
	const released = f.sinks.find((s) => s.decision === "release");
	if (released) return { plane: "flow", outcome: "release", why: `${released.operation} to ${released.sink}: ${released.why}` };
	return { plane: "flow", outcome: "allow", why: f.sinks.length === 0 ? "the call sends nothing out" : "every sink clears the payload" };
}

export function runVerdict(check: { decision: "allow" | "ask" | "deny"; reason: string; capability: CapabilityVerdict; flow?: FlowExplanation | undefined }): RunVerdict {
	const planes: PlaneVerdict[] = [{ plane: "decision", outcome: check.decision, why: check.reason }, capabilityPlane(check.capability)];
	if (check.flow) planes.push(flowPlane(check.flow));
	let top = planes[0]!;
	for (const p of planes) if (RANK[p.outcome] > RANK[top.outcome]) top = p;
	return { outcome: top.outcome, by: top.plane, planes };
}
