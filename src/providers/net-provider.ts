/**
 * Thin HTTP access through the runtime's global fetch. The URL is already admitted by the kernel;
 * this module does no policy. It never follows a redirect (the next hop is another admission), stops
 * reading the body at a byte cap, and bounds the whole exchange with a timeout.
 */

export interface HttpRequest {
	url: string;
	method: string;
	headers: Record<string, string>;
	body?: string | undefined;
	/** Covers connecting, the headers and the body. */
	timeoutMs: number;
	/** Body bytes kept; reading stops once the cap is passed. */
	maxBytes: number;
	signal: AbortSignal;
}

export interface HttpResponse {
	status: number;
	statusText: string;
	/** Header names lower-cased; repeated headers joined as fetch joins them. */
	headers: Record<string, string>;
	body: Buffer;
	truncated: boolean;
	durationMs: number;
}

/** The exchange did not finish within its timeout. */
export class HttpTimeoutError extends Error {
	override name = "HttpTimeoutError";
}

/** The caller's signal ended the exchange. */
export class HttpCancelledError extends Error {
	override name = "HttpCancelledError";
}

/** The request could not be made or answered (refused connection, bad DNS name, reset). */
export class HttpRequestError extends Error {
	override name = "HttpRequestError";
}

export async function httpFetch(req: HttpRequest): Promise<HttpResponse> {
	const started = performance.now();
	const controller = new AbortController();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		controller.abort();
	}, req.timeoutMs);
	const onCancel = () => controller.abort();
	if (req.signal.aborted) controller.abort();
	else req.signal.addEventListener("abort", onCancel, { once: true });

	const failure = (err: unknown): Error => {
		if (timedOut) return new HttpTimeoutError(`${req.method} ${req.url} timed out after ${req.timeoutMs} ms`);
		if (req.signal.aborted) return new HttpCancelledError(`${req.method} ${req.url} was cancelled`);
		const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
		return new HttpRequestError(`${req.method} ${req.url} failed: ${cause}`);
	};

	try {
		let response: Response;
		try {
			response = await fetch(req.url, {
				method: req.method,
				headers: req.headers,
				...(req.body === undefined ? {} : { body: req.body }),
				redirect: "manual",
				signal: controller.signal,
			});
		} catch (err) {
			throw failure(err);
		}
		const headers: Record<string, string> = {};
		response.headers.forEach((value, name) => {
			headers[name] = value;
		});
		let read: { body: Buffer; truncated: boolean };
		try {
			read = await readCapped(response, req.maxBytes);
		} catch (err) {
			throw failure(err);
		}
		return { status: response.status, statusText: response.statusText, headers, ...read, durationMs: Math.round(performance.now() - started) };
	} finally {
		clearTimeout(timer);
		req.signal.removeEventListener("abort", onCancel);
	}
}

/** Reads the body chunk by chunk and cancels the stream once more than `maxBytes` arrived. */
async function readCapped(response: Response, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
	if (!response.body) return { body: Buffer.alloc(0), truncated: false };
	const reader = response.body.getReader();
	const chunks: Uint8Array[] = [];
	let total = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) return { body: Buffer.concat(chunks), truncated: false };
		chunks.push(value);
		total += value.length;
		if (total > maxBytes) {
			await reader.cancel().catch(() => undefined);
			return { body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
		}
	}
}
