/** Formatting figures and aligning rows for the plain-text report. */
import type { CallTiming, RateTiming } from "./bench-types.js";

const MIB = 1024 * 1024;

export function duration(us: number): string {
	if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`;
	return `${us.toFixed(us >= 100 ? 0 : 1)} µs`;
}

export function ratio(value: number): string {
	return `${value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2)}×`;
}

export function mib(bytes: number): string {
	return `${(bytes / MIB).toFixed(1)} MiB`;
}

export function thousands(value: number): string {
	return Math.round(value).toLocaleString("en-US");
}

/** Left-aligns the first column and right-aligns the rest. */
export function table(rows: string[][]): string[] {
	const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
	return rows.map((row) => `  ${row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("   ")}`.trimEnd());
}

/** Median, spread and the ratio of medians against the yardstick's median. */
export function timingRow(label: string, timing: CallTiming, versus: number): string[] {
	return [label, duration(timing.medianUs), duration(timing.minUs), duration(timing.maxUs), ratio(timing.medianUs / versus)];
}

/** As timingRow, with the rate the median gives first. */
export function rateRow(label: string, timing: RateTiming, versus: number): string[] {
	return [label, thousands(timing.perSecond), ...timingRow(label, timing, versus).slice(1)];
}
