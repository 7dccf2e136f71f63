import { describe, expect, it } from "vitest";
import { Budget, type Reservation } from "./budget.js";
import { BudgetExhaustedError, BudgetLimitError, BudgetReservationError } from "./budget-errors.js";
import { checkBudgetLimits } from "./budget-limits.js";

/** host → session → turn, the chain a runtime builds. */
function chain(limits: { host?: object; session?: object; turn?: object } = {}) {
	const host = new Budget("host", limits.host);
	const session = host.child("session", limits.session);
	const turn = session.child("turn", limits.turn);
	return { host, session, turn };
}

function refusalOf(fn: () => unknown): BudgetExhaustedError {
	try {
		fn();
	} catch (err) {
		if (err instanceof BudgetExhaustedError) return err;
		throw err;
	}
	throw new Error("expected a BudgetExhaustedError");
}

/** A small deterministic generator, so a failing seed can be replayed. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

describe("Budget chain charging", () => {
	it("charges a turn's use to its session and its host", () => {
		const { host, session, turn } = chain();
		turn.reserve("tool_calls", 1).settle(1);
		turn.reserve("bytes_read", 100).settle(40);
		expect(turn.usage().tool_calls).toEqual({ used: 1 });
		expect(session.usage().bytes_read).toEqual({ used: 40 });
		expect(host.usage().bytes_read).toEqual({ used: 40 });
		// A second turn of the same session adds to the session and host, not to the first turn.
		const second = session.child("turn");
		second.reserve("tool_calls", 1).settle(1);
		expect(turn.usage().tool_calls.used).toBe(1);
		expect(session.usage().tool_calls.used).toBe(2);
		expect(host.usage().tool_calls.used).toBe(2);
	});

	it("refuses when any ancestor would exceed its limit, naming that budget", () => {
		const { session, turn } = chain({ session: { tool_calls: 2 }, turn: { tool_calls: 10 } });
		turn.reserve("tool_calls", 1).settle(1);
		session.child("turn").reserve("tool_calls", 1).settle(1);
		const err = refusalOf(() => turn.reserve("tool_calls", 1));
		expect(err).toMatchObject({ counter: "tool_calls", scope: "session", limit: 2, used: 2, requested: 1 });
		expect(err.message).toBe("budget exhausted: tool_calls would exceed the session limit of 2 (used 2, requested 1)");
		expect(err.message).not.toContain("\n");
		expect(turn.refusal).toBe(err);
	});

	it("names the nearest budget that refuses when several would", () => {
		const { turn } = chain({ host: { bytes_written: 5 }, turn: { bytes_written: 5 } });
		expect(refusalOf(() => turn.reserve("bytes_written", 6)).scope).toBe("turn");
	});

	it("holds all or nothing: a refusal anywhere in the chain leaves no hold on any budget", () => {
		const { host, session, turn } = chain({ host: { prompt_tokens: 10 } });
		const err = refusalOf(() => turn.reserveAll({ model_calls: 1, completion_tokens: 3, prompt_tokens: 11 }));
		expect(err).toMatchObject({ counter: "prompt_tokens", scope: "host" });
		for (const b of [host, session, turn]) {
			expect(b.holding("model_calls")).toBe(0);
			expect(b.holding("completion_tokens")).toBe(0);
			expect(b.holding("prompt_tokens")).toBe(0);
		}
		// The whole envelope still fits once it is small enough.
		const held = turn.reserveAll({ model_calls: 1, completion_tokens: 3, prompt_tokens: 10 });
		expect(host.holding("prompt_tokens")).toBe(10);
		expect(session.holding("model_calls")).toBe(1);
		held.release();
		expect(host.holding("prompt_tokens")).toBe(0);
	});

	it("counts what running work holds against the limit", () => {
		const { session, turn } = chain({ session: { shell_ms: 1000 } });
		const first = turn.reserve("shell_ms", 700);
		const sibling = session.child("turn");
		expect(refusalOf(() => sibling.reserve("shell_ms", 400))).toMatchObject({ used: 700, requested: 400, limit: 1000 });
		first.settle(50);
		sibling.reserve("shell_ms", 900).settle(900);
		expect(session.usage().shell_ms).toEqual({ used: 950, limit: 1000 });
	});
});

describe("Budget settlement", () => {
	it("settles less than reserved and returns the rest", () => {
		const { session, turn } = chain({ session: { bytes_read: 100 } });
		const held = turn.reserve("bytes_read", 100);
		expect(held.settle(30)).toEqual([]);
		expect(session.usage().bytes_read).toEqual({ used: 30, limit: 100 });
		expect(session.holding("bytes_read")).toBe(0);
		turn.reserve("bytes_read", 70).settle(70);
	});

	it("charges more than reserved, reports the overrun on every budget it crosses, and refuses afterwards", () => {
		const { session, turn } = chain({ session: { completion_tokens: 100 }, turn: { completion_tokens: 50 } });
		const held = turn.reserveAll({ model_calls: 1, completion_tokens: 0 });
		const overruns = held.settle({ model_calls: 1, completion_tokens: 120 });
		expect(overruns).toEqual([
			{ counter: "completion_tokens", scope: "turn", limit: 50, used: 120 },
			{ counter: "completion_tokens", scope: "session", limit: 100, used: 120 },
		]);
		expect(session.usage().completion_tokens).toEqual({ used: 120, limit: 100 });
		// Even an empty envelope no longer fits: the next model call is refused.
		expect(refusalOf(() => turn.reserveAll({ model_calls: 1, completion_tokens: 0 }))).toMatchObject({
			counter: "completion_tokens",
			scope: "turn",
			used: 120,
			requested: 0,
		});
	});

	it("releases a reservation for work that never started, charging nothing", () => {
		const { host, turn } = chain({ host: { tool_calls: 1 } });
		turn.reserve("tool_calls", 1).release();
		expect(host.usage().tool_calls).toEqual({ used: 0, limit: 1 });
		turn.reserve("tool_calls", 1).settle(1);
		expect(() => turn.reserve("tool_calls", 1)).toThrow(BudgetExhaustedError);
	});

	it("refuses to settle or release a reservation twice, or through another budget", () => {
		const { session, turn } = chain();
		const held = turn.reserve("tool_calls", 1);
		held.settle(1);
		expect(() => held.settle(1)).toThrow(BudgetReservationError);
		expect(() => held.release()).toThrow(BudgetReservationError);
		const other = turn.reserve("tool_calls", 1);
		expect(() => session.settle(other, 1)).toThrow(/cannot be settled by the session budget/);
		expect(session.usage().tool_calls.used).toBe(1);
	});

	it("settles a several-counter reservation only from a mapping of the counters it holds", () => {
		const { turn } = chain();
		const held = turn.reserveAll({ model_calls: 1, prompt_tokens: 0 });
		expect(() => held.settle(1)).toThrow(BudgetReservationError);
		expect(() => held.settle({ bytes_read: 1 })).toThrow(/bytes_read was not reserved/);
		// A counter left out settles at what it held.
		held.settle({ prompt_tokens: 12 });
		expect(turn.usage().model_calls.used).toBe(1);
		expect(turn.usage().prompt_tokens.used).toBe(12);
	});
});

describe("Budget limits at the boundary", () => {
	it("admits a reservation that lands exactly on the limit and refuses one unit more", () => {
		const { turn } = chain({ session: { bytes_written: 10 } });
		turn.reserve("bytes_written", 4).settle(4);
		expect(refusalOf(() => turn.reserve("bytes_written", 7))).toMatchObject({ used: 4, requested: 7, limit: 10 });
		turn.reserve("bytes_written", 6).settle(6);
		expect(refusalOf(() => turn.reserve("bytes_written", 1))).toMatchObject({ used: 10, requested: 1 });
		// An empty reservation still fits at the limit: nothing over it has been charged.
		turn.reserve("bytes_written", 0).release();
	});

	it("a limit of zero refuses any use of the counter", () => {
		const { turn } = chain({ turn: { shell_ms: 0 } });
		expect(refusalOf(() => turn.reserve("shell_ms", 1))).toMatchObject({ scope: "turn", limit: 0, used: 0, requested: 1 });
		turn.reserve("tool_calls", 5).settle(5);
	});
});

describe("Budget inputs", () => {
	it("rejects unknown counters and negative, fractional or non-numeric limits and amounts, one line each", () => {
		expect(() => new Budget("session", { tool_call: 1 } as object)).toThrow('session budget: unknown counter "tool_call"; use one of tool_calls,');
		expect(() => new Budget("session", { tool_calls: -1 })).toThrow("session budget.tool_calls must be a non-negative integer, got -1");
		expect(() => new Budget("host", { shell_ms: 1.5 })).toThrow(BudgetLimitError);
		expect(() => checkBudgetLimits({ bytes_read: "10" }, "budget")).toThrow('budget.bytes_read must be a non-negative integer, got "10"');
		expect(() => checkBudgetLimits([], "budget")).toThrow("budget must map counters to limits");
		expect(checkBudgetLimits({ tool_calls: 3, shell_ms: undefined }, "budget")).toEqual({ tool_calls: 3 });
		const budget = new Budget("turn");
		expect(() => budget.reserve("bytes_read", -5)).toThrow(BudgetLimitError);
		expect(() => budget.reserve("bytes_read", Number.NaN)).toThrow(BudgetLimitError);
		expect(budget.holding("bytes_read")).toBe(0);
	});
});

describe("Budget, randomized", () => {
	const COUNTER = "bytes_written" as const;

	it("one reservation at a time: settled use never exceeds the limit by more than the last settlement's overrun", () => {
		for (let seed = 1; seed <= 200; seed++) {
			const next = random(seed);
			const limit = Math.floor(next() * 500);
			const { host, session, turn } = chain({ session: { [COUNTER]: limit } });
			let lastOverrun = 0;
			for (let op = 0; op < 60; op++) {
				const amount = Math.floor(next() * 80);
				let held: Reservation;
				try {
					held = turn.reserve(COUNTER, amount);
				} catch (err) {
					expect(err).toBeInstanceOf(BudgetExhaustedError);
					expect(session.usage()[COUNTER].used + amount).toBeGreaterThan(limit);
					continue;
				}
				const roll = next();
				if (roll < 0.15) {
					held.release();
					continue;
				}
				// Mostly less than reserved, sometimes more (a measurement past its envelope).
				const actual = roll < 0.3 ? amount + Math.floor(next() * 40) : Math.floor(next() * (amount + 1));
				held.settle(actual);
				lastOverrun = Math.max(0, actual - amount);
				const used = session.usage()[COUNTER].used;
				expect(used, `seed ${seed}`).toBeLessThanOrEqual(limit + lastOverrun);
				expect(host.usage()[COUNTER].used).toBe(used);
			}
			expect(session.holding(COUNTER)).toBe(0);
		}
	});

	it("many reservations in flight: use stays within the limit plus the sum of overruns, and never above it without one", () => {
		for (let seed = 1; seed <= 200; seed++) {
			const next = random(seed * 7919);
			const limit = Math.floor(next() * 400);
			const overrunAllowed = seed % 2 === 0;
			const host = new Budget("host", { [COUNTER]: limit });
			const turns = [host.child("session").child("turn"), host.child("session").child("turn")];
			const open: Reservation[] = [];
			let overruns = 0;
			for (let op = 0; op < 80; op++) {
				if (open.length > 0 && next() < 0.5) {
					const held = open.splice(Math.floor(next() * open.length), 1)[0]!;
					const reserved = held.amounts[COUNTER]!;
					const actual = overrunAllowed && next() < 0.3 ? reserved + Math.floor(next() * 30) : Math.floor(next() * (reserved + 1));
					held.settle(actual);
					overruns += Math.max(0, actual - reserved);
				} else {
					const turn = turns[Math.floor(next() * turns.length)]!;
					try {
						open.push(turn.reserve(COUNTER, Math.floor(next() * 60)));
					} catch (err) {
						expect(err).toBeInstanceOf(BudgetExhaustedError);
					}
				}
				const committed = host.usage()[COUNTER].used + host.holding(COUNTER);
				expect(committed, `seed ${seed}`).toBeLessThanOrEqual(limit + overruns);
			}
			for (const held of open) held.release();
			expect(host.holding(COUNTER)).toBe(0);
			if (!overrunAllowed) expect(host.usage()[COUNTER].used).toBeLessThanOrEqual(limit);
		}
	});
});

describe("Budget carried use (a resumed session)", () => {
	it("counts carried use in this budget only, and a reservation past the limit is refused", () => {
		const host = new Budget("host", { tool_calls: 10 });
		const session = host.child("session", { tool_calls: 3 });
		session.carry({ tool_calls: 2, shell_ms: 40 });
		expect(session.usage().tool_calls).toEqual({ used: 2, limit: 3 });
		expect(session.usage().shell_ms).toEqual({ used: 40 });
		expect(host.usage().tool_calls).toEqual({ used: 0, limit: 10 });
		session.child("turn").reserve("tool_calls", 1).settle(1);
		expect(() => session.child("turn").reserve("tool_calls", 1)).toThrow(BudgetExhaustedError);
	});

	it("refuses a carried amount that is not a counter or not a non-negative integer", () => {
		const session = new Budget("session");
		expect(() => session.carry({ tool_calls: -1 })).toThrow(BudgetLimitError);
		expect(() => session.carry({ wall_ms: 1 } as never)).toThrow(BudgetLimitError);
		expect(session.usage().tool_calls).toEqual({ used: 0 });
	});
});
