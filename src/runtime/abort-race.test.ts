import { describe, expect, it } from "vitest";
import { ABORTED, untilAborted } from "./abort-race.js";

describe("untilAborted", () => {
	it("passes the value through when the signal stays quiet", async () => {
		await expect(untilAborted(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
	});

	it("returns ABORTED at once when the signal fires first, and swallows the late rejection", async () => {
		const controller = new AbortController();
		let reject!: (e: Error) => void;
		const never = new Promise<number>((_, r) => {
			reject = r;
		});
		const raced = untilAborted(never, controller.signal);
		controller.abort();
		await expect(raced).resolves.toBe(ABORTED);
		reject(new Error("late"));
		await new Promise((r) => setTimeout(r, 1));
	});

	it("returns ABORTED for an already-aborted signal and rethrows rejections that come first", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(untilAborted(new Promise(() => undefined), controller.signal)).resolves.toBe(ABORTED);
		await expect(untilAborted(Promise.reject(new Error("boom")), new AbortController().signal)).rejects.toThrow("boom");
	});
});
