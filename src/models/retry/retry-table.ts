/**
 * Which failures are worth another attempt: a server that is busy, restarting or rate limiting,
 * and a connection that broke. Everything else (a bad key, a wrong model, a malformed request)
 * fails the same way every time and is reported at once.
 */
export const RETRYABLE_STATUS: Readonly<Record<number, string>> = {
	408: "request timeout",
	425: "too early",
	429: "rate limited",
	500: "server error",
	502: "bad gateway",
	503: "service unavailable",
	504: "gateway timeout",
	// Anthropic's "overloaded".
	529: "overloaded",
};

/** Connection failures by the code Node or undici gives them. A refused connection is not here: no server is listening, and waiting rarely brings one. */
export const RETRYABLE_NETWORK_CODE: Readonly<Record<string, string>> = {
	ECONNRESET: "connection reset",
	EPIPE: "connection broken",
	ETIMEDOUT: "timed out",
	UND_ERR_SOCKET: "connection closed by the server",
	UND_ERR_CONNECT_TIMEOUT: "connect timed out",
	EAI_AGAIN: "host lookup failed",
};

export function retryableStatus(status: number): string | undefined {
	return RETRYABLE_STATUS[status];
}

/** The code of a network error, looking through undici's `fetch failed` wrapper and the SDK's `cause` chain. */
export function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
		if (typeof current === "object" && "code" in current && typeof current.code === "string") return current.code;
		current = current instanceof Error ? current.cause : undefined;
	}
	return undefined;
}
