/**
 * Reads the wait a server asks for: `retry-after-ms` (milliseconds, sent by OpenAI and Anthropic),
 * else `Retry-After` as seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now: () => number): number | undefined {
	if (headers === undefined) return undefined;
	const ms = headers.get("retry-after-ms")?.trim();
	if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
	const value = headers.get("retry-after")?.trim();
	if (value === undefined || value === "") return undefined;
	if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
	const date = Date.parse(value);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now());
}
