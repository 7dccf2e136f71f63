/** What a provider reports when one attempt failed for a passing reason and it tries again. */
export interface ModelRetry {
	/** The attempt that failed, from 1. */
	attempt: number;
	/** Attempts allowed in all (the first one and the retries). */
	max_attempts: number;
	/** Why, in a few words: `HTTP 429 rate limited`, `connection reset`. */
	reason: string;
	/** How long it waits before the next attempt, in ms. */
	delay_ms: number;
	/** Set when the server asked for the wait (`Retry-After`). */
	retry_after_ms?: number;
}
