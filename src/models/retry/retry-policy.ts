/**
 * Bounded retries with exponential backoff and jitter, shared by every HTTP provider. A provider
 * throws TransientModelError for a failure worth another attempt; anything else passes through.
 * Each retry is announced (the runtime records it as `model.retried`) before the wait.
 */
import { AbortError } from "../abort-error.js";
import { ModelError } from "../provider.js";
import type { ModelRetry } from "../provider-retry.js";

export interface RetrySettings {
	/** Retries after the first attempt; 0 turns retrying off. */
	maxRetries: number;
	/** The first wait; each later one doubles, up to maxDelayMs. */
	baseDelayMs: number;
	/** The longest wait, and the longest `Retry-After` honoured: a server asking for more is given up on at once. */
	maxDelayMs: number;
	/** Waits, or rejects with an AbortError when the signal fires. Injected by tests so that no test waits. */
	sleep: (ms: number, signal: AbortSignal) => Promise<void>;
	/** In [0, 1): the jitter. */
	random: () => number;
	/** Epoch ms, for `Retry-After` given as a date. */
	now: () => number;
}

export const DEFAULT_MAX_RETRIES = 3;

export const DEFAULT_RETRY: RetrySettings = {
	maxRetries: DEFAULT_MAX_RETRIES,
	baseDelayMs: 1000,
	maxDelayMs: 60_000,
	sleep: abortableSleep,
	random: Math.random,
	now: Date.now,
};

export function retrySettings(overrides: Partial<RetrySettings> | undefined): RetrySettings {
	const settings = { ...DEFAULT_RETRY, ...overrides };
	if (!Number.isInteger(settings.maxRetries) || settings.maxRetries < 0) {
		throw new ModelError(`model retries must be a whole number of at least 0, got ${settings.maxRetries}`);
	}
	return settings;
}

/** A failure that may pass: rate limiting, a busy or restarting server, a connection cut. */
export class TransientModelError extends ModelError {
	constructor(
		/** The full one-line message, used when retries run out. */
		message: string,
		/** A few words for the retry event. */
		readonly reason: string,
		/** What the server asked for, if it did. */
		readonly retryAfterMs?: number,
	) {
		super(message);
	}
}

/** The wait before retry number `retry` (from 1): Retry-After when given, else base·2^(n-1) with ±50% jitter, capped. */
export function backoffDelay(retry: number, settings: RetrySettings, retryAfter?: number): number {
	if (retryAfter !== undefined) return Math.min(retryAfter, settings.maxDelayMs);
	const exponential = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (retry - 1));
	return Math.round(exponential * (0.5 + settings.random() / 2));
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries run out; then the last error's
 * message says how many attempts were made.
 */
export async function withRetries<T>(
	attempt: (number: number) => Promise<T>,
	settings: RetrySettings,
	signal: AbortSignal,
	onRetry?: (retry: ModelRetry) => void | Promise<void>,
): Promise<T> {
	const maxAttempts = settings.maxRetries + 1;
	for (let number = 1; ; number++) {
		try {
			return await attempt(number);
		} catch (error) {
			if (!(error instanceof TransientModelError) || signal.aborted) throw error;
			if (error.retryAfterMs !== undefined && error.retryAfterMs > settings.maxDelayMs) {
				throw new ModelError(`${error.message} (the server asked to wait ${seconds(error.retryAfterMs)}, longer than the ${seconds(settings.maxDelayMs)} Warden waits)`);
			}
			if (number >= maxAttempts) {
				throw new ModelError(maxAttempts === 1 ? error.message : `${error.message} (gave up after ${maxAttempts} attempts)`);
			}
			const delay = backoffDelay(number, settings, error.retryAfterMs);
			const retry: ModelRetry = { attempt: number, max_attempts: maxAttempts, reason: error.reason, delay_ms: delay };
			if (error.retryAfterMs !== undefined) retry.retry_after_ms = error.retryAfterMs;
			await onRetry?.(retry);
			await settings.sleep(delay, signal);
		}
	}
}

function seconds(ms: number): string {
	return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal.aborted) {
			reject(new AbortError());
			return;
		}
		const onAbort = () => {
			clearTimeout(timer);
			reject(new AbortError());
		};
		const timer = setTimeout(() => {
			signal.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		signal.addEventListener("abort", onAbort, { once: true });
	});
}
