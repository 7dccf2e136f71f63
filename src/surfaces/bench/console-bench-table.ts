/** The console benchmark's rows in the bench table, and the goals they are held to. */
import type { EchoTiming } from "./bench-types.js";
import type { ConsoleBenchReport } from "./console-bench.js";
import { duration, table, thousands, timingRow } from "./table-cells.js";

/** Feed latency's goal, p95, in ms. */
export const FEED_GOAL_MS = 100;
/** The large chain's page time against the small one's. */
export const PAGE_GOAL_RATIO = 1.5;
/** Records per audit page, as the page asks for them. */
export const PAGE_SIZE = 50;

function latencyRow(label: string, t: EchoTiming): string[] {
	return [label, `${t.p50Ms.toFixed(1)} ms`, `${t.p95Ms.toFixed(1)} ms`, `${t.maxMs.toFixed(1)} ms`, String(t.samples)];
}

export function consoleSection(c: ConsoleBenchReport): string[] {
	const base = c.smallPage.medianUs;
	return [
		`Operator console: an event appended in another process, to its arrival at an SSE client (${c.events} events; goal p95 ≤ ${FEED_GOAL_MS} ms: ${c.feedGoalMet ? "met" : "NOT met"})`,
		...table([["step", "p50", "p95", "max", "events"], latencyRow("appendEvent in the other process, durable (yardstick)", c.append), latencyRow("append start to SSE arrival", c.feed)]),
		`Audit browser: one page of ${PAGE_SIZE} records over HTTP (median of ${c.pageRounds} rounds; goal ≤ ${PAGE_GOAL_RATIO}×: ${c.pageGoalMet ? "met" : "NOT met"}, ${c.pageRatio.toFixed(2)}×)`,
		...table([
			["chain", "median", "min", "max", "vs small"],
			timingRow(`${thousands(c.smallRecords)} records (yardstick)`, c.smallPage, base),
			timingRow(`${thousands(c.largeRecords)} records`, c.largePage, base),
		]),
		`  a page costs ${duration(c.largePage.medianUs)} at ${thousands(c.largeRecords)} records`,
	];
}
