/** Reducing per-round samples to the figures a report shows. */
import type { CallTiming, RateTiming } from "./bench-types.js";

/** The middle value (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
	if (values.length === 0) throw new RangeError("median of no values");
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function callTiming(samplesUs: readonly number[]): CallTiming {
	return {
		medianUs: median(samplesUs),
		minUs: Math.min(...samplesUs),
		maxUs: Math.max(...samplesUs),
		samplesUs: [...samplesUs],
	};
}

export function rateTiming(samplesUs: readonly number[]): RateTiming {
	const timing = callTiming(samplesUs);
	return { ...timing, perSecond: 1e6 / timing.medianUs };
}
