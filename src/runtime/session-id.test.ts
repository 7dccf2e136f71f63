import { describe, expect, it } from "vitest";
import { newSessionId } from "./session-id.js";

describe("newSessionId", () => {
	it("is a version 7 UUID whose first 48 bits are the creation time in milliseconds", () => {
		const now = Date.UTC(2026, 11, 2, 13, 30);
		const id = newSessionId(now);
		expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(now);
	});

	it("sorts by creation time, and two made in the same millisecond differ", () => {
		const ids = [0, 1, 1000, 86_400_000].map((offset) => newSessionId(Date.UTC(2026, 0, 1) + offset));
		expect([...ids].sort()).toEqual(ids);
		const now = Date.now();
		expect(newSessionId(now)).not.toBe(newSessionId(now));
	});
});
