import { describe, expect, it } from "vitest";
import { runByKey } from "./keyed-serializer.js";

describe("runByKey", () => {
	it("serializes tasks with one key and overlaps different keys", async () => {
		const log: string[] = [];
		const running = new Map<string, number>();
		let maxParallel = 0;
		const items = ["a1", "b1", "a2", "b2", "c1"];
		const results = await runByKey(
			items,
			(item) => item[0]!,
			async (item) => {
				const key = item[0]!;
				expect(running.get(key) ?? 0).toBe(0);
				running.set(key, 1);
				maxParallel = Math.max(maxParallel, [...running.values()].reduce((a, b) => a + b, 0));
				log.push(`start ${item}`);
				await new Promise((r) => setTimeout(r, 10));
				log.push(`end ${item}`);
				running.set(key, 0);
				return item.toUpperCase();
			},
		);
		expect(results).toEqual(["A1", "B1", "A2", "B2", "C1"]);
		expect(log.indexOf("end a1")).toBeLessThan(log.indexOf("start a2"));
		expect(maxParallel).toBeGreaterThan(1);
	});

	it("keeps running later tasks of a key after one fails", async () => {
		const ran: string[] = [];
		const outcome = runByKey(["x1", "x2"], () => "x", async (i) => {
			ran.push(i);
			if (i === "x1") throw new Error("boom");
			return i;
		});
		await expect(outcome).rejects.toThrow("boom");
		await new Promise((r) => setTimeout(r, 5));
		expect(ran).toEqual(["x1", "x2"]);
	});
});
