import { describe, expect, it } from "vitest";
import { backoffMs, CoreSaturation, coresSaturated, isBusy, retryWhileBusy, runnableTasks, WRITE_LOCK_WAIT, type WriteLockWait } from "./write-lock-wait.js";

const WAIT: WriteLockWait = { boundMs: 100, steps: [0.5, 1, 2, 4] };

function busyError(code = "SQLITE_BUSY"): Error {
	return Object.assign(new Error("database is locked"), { code });
}

describe("backoffMs", () => {
	const rows: { n: number; step: number }[] = [
		{ n: 0, step: 0.5 },
		{ n: 1, step: 1 },
		{ n: 2, step: 2 },
		{ n: 3, step: 4 },
		{ n: 4, step: 4 },
		{ n: 1000, step: 4 },
	];
	for (const { n, step } of rows) {
		it(`sleep ${n} lies between half of ${step} ms and all of it`, () => {
			for (let i = 0; i < 50; i++) {
				const ms = backoffMs(n, WAIT);
				expect(ms).toBeGreaterThanOrEqual(step / 2);
				expect(ms).toBeLessThanOrEqual(step);
			}
		});
	}

	it("the store's schedule starts well under a millisecond and never sleeps past 2 ms, and the wait is bounded in all", () => {
		expect(WRITE_LOCK_WAIT.steps[0]).toBeLessThan(1);
		expect(Math.max(...WRITE_LOCK_WAIT.steps)).toBeLessThanOrEqual(2);
		expect(WRITE_LOCK_WAIT.boundMs).toBeGreaterThan(0);
	});
});

describe("runnableTasks and coresSaturated", () => {
	const rows: { loadavg: string; runnable: number | undefined; cores: number; saturated: boolean }[] = [
		{ loadavg: "0.61 0.40 0.30 2/162 10437", runnable: 2, cores: 2, saturated: false },
		{ loadavg: "0.61 0.40 0.30 3/162 10437", runnable: 3, cores: 2, saturated: true },
		{ loadavg: "2.50 0.40 0.30 1/162 10437", runnable: 1, cores: 2, saturated: true },
		{ loadavg: "8.77 18.72 85.92 9/170 10437", runnable: 9, cores: 16, saturated: false },
		{ loadavg: "1.00 1.00 1.00 1/100 1\n", runnable: 1, cores: 1, saturated: false },
	];
	for (const { loadavg, runnable, cores, saturated } of rows) {
		it(`${JSON.stringify(loadavg)} has ${runnable} runnable: on ${cores} core(s) ${saturated ? "" : "not "}saturated`, () => {
			expect(runnableTasks(loadavg)).toBe(runnable);
			expect(coresSaturated(cores, () => loadavg, () => Number(loadavg.split(" ")[0]))).toBe(saturated);
		});
	}
	it("a count it cannot read is undefined", () => {
		expect(runnableTasks("0.61 0.40 0.30")).toBeUndefined();
		expect(runnableTasks("0.61 0.40 0.30 x/162 1")).toBeUndefined();
	});
	it("without /proc/loadavg the load average answers alone", () => {
		const unreadable = () => {
			throw new Error("ENOENT");
		};
		expect(coresSaturated(2, unreadable, () => 3)).toBe(true);
		expect(coresSaturated(2, unreadable, () => 1)).toBe(false);
	});
});

describe("CoreSaturation", () => {
	it("asks again only once its verdict is older than its bound", () => {
		let clock = 0;
		const verdicts = [true, false];
		let asked = 0;
		const cores = new CoreSaturation(() => verdicts[asked++]!, () => clock, 1_000);
		expect(cores.saturated()).toBe(true);
		clock = 999;
		expect(cores.saturated()).toBe(true);
		clock = 1_000;
		expect(cores.saturated()).toBe(false);
		expect(asked).toBe(2);
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

	it("past the bound, counted from the first attempt, the refusal becomes the one error refuse makes, and no sleep runs past it", () => {
		let clock = 0;
		const slept: number[] = [];
		const attempt = () => {
			// An attempt that itself waited (SQLite's handler) counts against the bound too.
			clock += 10;
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
		expect(clock).toBeGreaterThanOrEqual(WAIT.boundMs);
		expect(clock).toBeLessThanOrEqual(WAIT.boundMs + 10);
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
