import { describe, expect, it } from "vitest";
import type { CapabilityVerdict } from "./capability-verdict.js";
import type { FlowExplanation, FlowSinkCheck } from "./policy-check-flow.js";
import { runVerdict } from "./policy-verdict.js";

const admitted: CapabilityVerdict = { admitted: true, ceiling: "c", assumedApproved: false, checks: [] };
const refused: CapabilityVerdict = {
	admitted: false,
	ceiling: "c",
	assumedApproved: false,
	checks: [{ resource: "fs:x", right: "write", admitted: false, reason: "ceiling", verdict: "refused: outside the task ceiling" }],
};
const sink = (decision: FlowSinkCheck["decision"]): FlowSinkCheck => ({
	operation: "shell.exec",
	sink: "net:unknown",
	clearance: { sink: "net:unknown", trust: "untrusted", max: "internal", rule: "default: unmatched sink" },
	label: { sensitivity: "secret", integrity: "trusted", sources: [] },
	decision,
	why: `${decision} why`,
	ceiling_bounds: false,
});
const flow = (...decisions: FlowSinkCheck["decision"][]): FlowExplanation => ({ label: { sensitivity: "internal", integrity: "trusted", sources: [] }, egress: true, sinks: decisions.map(sink) });

/** decision, capability, flow sinks → the headline and the plane that gives it. */
const ROWS: [string, "allow" | "ask" | "deny", CapabilityVerdict, FlowExplanation | undefined, string, string][] = [
	["all allow", "allow", admitted, flow("allow"), "allow", "decision"],
	["the rules ask", "ask", admitted, flow("allow"), "ask", "decision"],
	["flow refuses what the rules allow", "allow", admitted, flow("allow", "deny"), "deny", "flow"],
	["flow needs a release the rules do not ask for", "allow", admitted, flow("release"), "release", "flow"],
	["a release outranks an ask", "ask", admitted, flow("release"), "release", "flow"],
	["the primitive refuses what the rules ask for", "ask", refused, undefined, "deny", "capability"],
	["a rule's deny is the first of equals", "deny", refused, flow("deny"), "deny", "decision"],
	["no flow block: two planes", "allow", admitted, undefined, "allow", "decision"],
];

describe("the verdict a run reaches", () => {
	for (const [name, decision, capability, f, outcome, by] of ROWS) {
		it(name, () => {
			const v = runVerdict({ decision, reason: "r", capability, flow: f });
			expect([v.outcome, v.by]).toEqual([outcome, by]);
			expect(v.planes.map((p) => p.plane)).toEqual(f ? ["decision", "capability", "flow"] : ["decision", "capability"]);
		});
	}

	it("each plane says why", () => {
		const v = runVerdict({ decision: "allow", reason: "allowed by mode", capability: refused, flow: flow("deny") });
		expect(v.planes).toEqual([
			{ plane: "decision", outcome: "allow", why: "allowed by mode" },
			{ plane: "capability", outcome: "deny", why: "write fs:x: refused: outside the task ceiling" },
			{ plane: "flow", outcome: "deny", why: "shell.exec to net:unknown: deny why" },
		]);
	});
});
