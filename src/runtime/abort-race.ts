/** Waiting on a host's or a model's promise without letting it hold a cancelled turn open. */

export const ABORTED: unique symbol = Symbol("aborted");

/**
 * Resolves with the promise's value, or with ABORTED as soon as the signal fires; a value or a
 * rejection that arrives after the abort is dropped.
 */
export async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
	if (signal.aborted) {
		promise.catch(() => undefined);
		return ABORTED;
	}
	let onAbort: (() => void) | undefined;
	const aborted = new Promise<typeof ABORTED>((resolve) => {
		onAbort = () => resolve(ABORTED);
		signal.addEventListener("abort", onAbort, { once: true });
	});
	promise.catch(() => undefined);
	try {
		return await Promise.race([promise, aborted]);
	} finally {
		if (onAbort) signal.removeEventListener("abort", onAbort);
	}
}
