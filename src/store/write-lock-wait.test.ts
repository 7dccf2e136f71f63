import { describe, expect, it } from "vitest";
import { backoffMs, isBusy, retryWhileBusy, WRITE_LOCK_WAIT, type WriteLockWait } from "./write-lock-wait.js";

const WAIT: WriteLockWait = { boundMs: 100, firstSleepMs: 0.5, maxSleepMs: 4 };

function busyError(code = "SQLITE_BUSY"): Error {
	return Object.assign(new Error("database is locked"), { code });
}

describe("backoffMs", () => {
	const rows: { n: number; ceiling: number }[] = [
		{ n: 0, ceiling: 0.5 },
		{ n: 1, ceiling: 1 },
		{ n: 2, ceiling: 2 },
		{ n: 3, ceiling: 4 },
		{ n: 4, ceiling: 4 },
		{ n: 1000, ceiling: 4 },
	];
	for (const { n, ceiling } of rows) {
		it(`sleep ${n} lies between half of ${ceiling} ms and all of it`, () => {
			for (let i = 0; i < 50; i++) {
				const ms = backoffMs(n, WAIT);
				expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
				expect(ms).toBeLessThanOrEqual(ceiling);
			}
		});
	}

	it("the store's schedule starts well under a millisecond and is bounded in all", () => {
		expect(WRITE_LOCK_WAIT.firstSleepMs).toBeLessThan(1);
		expect(WRITE_LOCK_WAIT.maxSleepMs).toBeLessThanOrEqual(10);
		expect(WRITE_LOCK_WAIT.boundMs).toBeGreaterThan(0);
	});
});

describe("isBusy", () => {
	const rows: { code: unknown; busy: boolean }[] = [
		{ code: "SQLITE_BUSY", busy: true },
		{ code: "SQLITE_BUSY_RECOVERY", busy: true },
		{ code: "SQLITE_BUSY_SNAPSHOT", busy: true },
		{ code: "SQLITE_CONSTRAINT", busy: false },
		{ code: undefined, busy: false },
	];
	for (const { code, busy } of rows) {
		it(`${String(code)} is ${busy ? "" : "not "}busy`, () => {
			expect(isBusy(Object.assign(new Error("x"), { code }))).toBe(busy);
		});
	}
	it("a non-error is not busy", () => {
		expect(isBusy(null)).toBe(false);
		expect(isBusy("SQLITE_BUSY")).toBe(false);
	});
});

describe("retryWhileBusy", () => {
	it("tries a refused attempt again after growing sleeps until it succeeds, telling each refusal", () => {
		let refusals = 3;
		const slept: number[] = [];
		let told = 0;
		const value = retryWhileBusy(
			() => {
				if (refusals-- > 0) throw busyError();
				return "done";
			},
			{ wait: WAIT, retryable: () => true, onBusy: () => told++, refuse: () => new Error("refused"), now: () => 0, sleep: (ms) => slept.push(ms) },
		);
		expect(value).toBe("done");
		expect(told).toBe(3);
		expect(slept).toHaveLength(3);
		expect(slept[0]).toBeLessThanOrEqual(0.5);
		expect(slept[2]).toBeGreaterThanOrEqual(1);
	});

	it("past the bound, the refusal becomes the one error refuse makes, and no sleep runs past the bound", () => {
		let clock = 0;
		const slept: number[] = [];
		const attempt = () => {
			throw busyError();
		};
		expect(() =>
			retryWhileBusy(attempt, {
				wait: WAIT,
				retryable: () => true,
				refuse: (error) => new Error(`stayed locked (${(error as Error).message})`),
				now: () => clock,
				sleep: (ms) => {
					slept.push(ms);
					clock += ms;
				},
			}),
		).toThrow(/^stayed locked \(database is locked\)$/);
		expect(slept.reduce((a, b) => a + b, 0)).toBeCloseTo(WAIT.boundMs, 6);
	});

	it("an error other than busy, or a busy one that may not be retried, is thrown as it is, with no sleep", () => {
		const slept: number[] = [];
		const hooks = { wait: WAIT, refuse: () => new Error("refused"), now: () => 0, sleep: (ms: number) => slept.push(ms) };
		const other = Object.assign(new Error("constraint"), { code: "SQLITE_CONSTRAINT" });
		expect(() =>
			retryWhileBusy(() => {
				throw other;
			}, { ...hooks, retryable: () => true }),
		).toThrow(other);
		const busy = busyError();
		expect(() =>
			retryWhileBusy(() => {
				throw busy;
			}, { ...hooks, retryable: () => false }),
		).toThrow(busy);
		expect(slept).toEqual([]);
	});
});
