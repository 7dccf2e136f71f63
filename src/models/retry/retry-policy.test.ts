import { describe, expect, it } from "vitest";
import { ModelError } from "../provider.js";
import type { ModelRetry } from "../provider-retry.js";
import { retryAfterMs } from "./retry-after.js";
import { backoffDelay, DEFAULT_RETRY, retrySettings, TransientModelError, withRetries } from "./retry-policy.js";
import { RETRYABLE_NETWORK_CODE, RETRYABLE_STATUS, networkCode, retryableStatus } from "./retry-table.js";
import { recordingRetry } from "./retry-test-clock.js";

const live = () => new AbortController().signal;

describe("the retry table", () => {
	it.each(Object.entries(RETRYABLE_STATUS))("HTTP %s is retried as %s", (status, words) => {
		expect(retryableStatus(Number(status))).toBe(words);
	});

	it.each([400, 401, 403, 404, 422, 501])("HTTP %s is not retried", (status) => {
		expect(retryableStatus(status)).toBeUndefined();
	});

	it.each(Object.entries(RETRYABLE_NETWORK_CODE))("%s found through fetch's cause chain", (code) => {
		const error = new TypeError("fetch failed", { cause: Object.assign(new Error("socket"), { code }) });
		expect(networkCode(error)).toBe(code);
	});

	it("a refused connection is not retryable", () => {
		expect(RETRYABLE_NETWORK_CODE.ECONNREFUSED).toBeUndefined();
	});
});

describe("Retry-After", () => {
	const now = () => Date.parse("2026-01-01T00:00:00Z");
	const headers = (entries: Record<string, string>) => new Headers(entries);
	it("reads seconds, milliseconds and an HTTP date", () => {
		expect(retryAfterMs(headers({ "retry-after": "7" }), now)).toBe(7000);
		expect(retryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "7" }), now)).toBe(250);
		expect(retryAfterMs(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30_000);
	});
	it("ignores a missing or unreadable value", () => {
		expect(retryAfterMs(headers({}), now)).toBeUndefined();
		expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeUndefined();
	});
});

describe("withRetries", () => {
	it("backs off exponentially with jitter, capped", () => {
		const settings = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 };
		expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, settings))).toEqual([50, 100, 200, 400, 500]);
		expect(backoffDelay(3, { ...settings, random: () => 0.999999 })).toBe(400);
		expect(backoffDelay(1, settings, 300)).toBe(300);
	});

	it("announces each retry before waiting and returns the first success", async () => {
		const { settings, waits } = recordingRetry(3);
		const seen: ModelRetry[] = [];
		let calls = 0;
		const result = await withRetries(
			async () => {
				calls++;
				if (calls < 3) throw new TransientModelError("busy", "HTTP 503 service unavailable", calls === 2 ? 4000 : undefined);
				return "ok";
			},
			retrySettings(settings),
			live(),
			(retry) => {
				seen.push(retry);
			},
		);
		expect(result).toBe("ok");
		expect(seen).toEqual([
			{ attempt: 1, max_attempts: 4, reason: "HTTP 503 service unavailable", delay_ms: 750 },
			{ attempt: 2, max_attempts: 4, reason: "HTTP 503 service unavailable", delay_ms: 4000, retry_after_ms: 4000 },
		]);
		expect(waits).toEqual([750, 4000]);
	});

	it("gives up after the last attempt with one line saying how many", async () => {
		const { settings } = recordingRetry(2);
		const error = await withRetries(async () => Promise.reject(new TransientModelError("rate limited", "HTTP 429 rate limited")), retrySettings(settings), live()).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).toBe("rate limited (gave up after 3 attempts)");
	});

	it("passes a lasting failure through at once", async () => {
		const { settings, waits } = recordingRetry(5);
		await expect(withRetries(async () => Promise.reject(new ModelError("bad key")), retrySettings(settings), live())).rejects.toThrow("bad key");
		expect(waits).toEqual([]);
	});

	it("does not wait longer than it allows when the server asks for more", async () => {
		const { settings, waits } = recordingRetry(5);
		const error = await withRetries(async () => Promise.reject(new TransientModelError("slow down", "HTTP 429 rate limited", 3_600_000)), retrySettings(settings), live()).catch((e: unknown) => e);
		expect((error as Error).message).toBe("slow down (the server asked to wait 3600 s, longer than the 60 s Warden waits)");
		expect(waits).toEqual([]);
	});

	it("rejects a negative or fractional count in one line", () => {
		expect(() => retrySettings({ maxRetries: -1 })).toThrow("model retries must be a whole number of at least 0, got -1");
		expect(() => retrySettings({ maxRetries: 1.5 })).toThrow(ModelError);
	});

	it("the real sleep stops when the signal fires", async () => {
		const controller = new AbortController();
		const waiting = DEFAULT_RETRY.sleep(60_000, controller.signal);
		controller.abort();
		await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
	});
});
