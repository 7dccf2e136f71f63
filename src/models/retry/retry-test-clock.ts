import type { RetrySettings } from "./retry-policy.js";

/** Retry settings whose waits are recorded instead of slept, so no test waits and none depends on timing. */
export function recordingRetry(maxRetries: number): { settings: Partial<RetrySettings>; waits: number[] } {
	const waits: number[] = [];
	return {
		waits,
		settings: {
			maxRetries,
			baseDelayMs: 1000,
			maxDelayMs: 60_000,
			random: () => 0.5,
			now: () => Date.parse("2026-01-01T00:00:00Z"),
			sleep: async (ms) => {
				waits.push(ms);
			},
		},
	};
}
