/** The breakdown of a governed call's time as the bench prints it. */
import type { CallBreakdown } from "./bench-types.js";
import { table } from "./table-cells.js";

export function callBreakdownLines(b: CallBreakdown, title: string): string[] {
	return [
		`${title} (one profiled round of ${b.calls} calls, sampled every ${b.samplingUs} µs; ${b.profiledUsPerCall.toFixed(0)} µs per call with the profiler on)`,
		...table([["component", "µs per call", "share"], ...b.components.map((c) => [c.component, c.usPerCall.toFixed(0), `${(c.share * 100).toFixed(1)}%`])]),
	];
}
