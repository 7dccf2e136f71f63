/**
 * Hierarchical budgets (the Agent libOS paper, §3.2): work reserves what it may use before it is
 * dispatched, and settles what it did use afterwards, along the whole chain from the acting budget
 * up to the host's. A reservation either fits in every budget of the chain or is held in none.
 */
import { BudgetExhaustedError, BudgetLimitError, BudgetReservationError } from "./budget-errors.js";
import { checkBudgetLimits } from "./budget-limits.js";
import {
	BUDGET_COUNTERS,
	type BudgetAmounts,
	type BudgetCounter,
	type BudgetLimits,
	type BudgetOverrun,
	type BudgetScope,
	type BudgetUsage,
	type CounterUsage,
	isBudgetCounter,
} from "./budget-types.js";

/** What one reservation holds, until it is settled (work ran) or released (it never started). */
export class Reservation {
	constructor(
		readonly budget: Budget,
		readonly amounts: Readonly<BudgetAmounts>,
	) {}

	settle(actual?: number | BudgetAmounts): BudgetOverrun[] {
		return this.budget.settle(this, actual);
	}

	release(): void {
		this.budget.release(this);
	}
}

function zeroes(): Record<BudgetCounter, number> {
	return Object.fromEntries(BUDGET_COUNTERS.map((c) => [c, 0])) as Record<BudgetCounter, number>;
}

function checkAmounts(amounts: BudgetAmounts): [BudgetCounter, number][] {
	const entries: [BudgetCounter, number][] = [];
	for (const [name, amount] of Object.entries(amounts)) {
		if (!isBudgetCounter(name)) throw new BudgetLimitError(`unknown budget counter "${name}"`);
		if (amount === undefined) continue;
		if (!Number.isSafeInteger(amount) || amount < 0) throw new BudgetLimitError(`${name}: an amount must be a non-negative integer, got ${amount}`);
		entries.push([name, amount]);
	}
	return entries;
}

export class Budget {
	private readonly limits: BudgetLimits;
	/** Settled use. */
	private readonly used = zeroes();
	/** Held by reservations not yet settled or released. */
	private readonly held = zeroes();
	private readonly open = new Set<Reservation>();
	private firstRefusal: BudgetExhaustedError | undefined;

	constructor(
		readonly scope: BudgetScope,
		limits: BudgetLimits = {},
		readonly parent?: Budget,
	) {
		this.limits = checkBudgetLimits(limits, `${scope} budget`);
	}

	/** A budget whose every charge is also charged to this one (and its ancestors). */
	child(scope: BudgetScope, limits: BudgetLimits = {}): Budget {
		return new Budget(scope, limits, this);
	}

	limit(counter: BudgetCounter): number | undefined {
		return this.limits[counter];
	}

	/** This budget's own limits (not its ancestors'). */
	ownLimits(): BudgetLimits {
		return { ...this.limits };
	}

	/** The first reservation this budget refused, if any: a tool that swallows the error cannot hide it. */
	get refusal(): BudgetExhaustedError | undefined {
		return this.firstRefusal;
	}

	reserve(counter: BudgetCounter, amount: number): Reservation {
		return this.reserveAll({ [counter]: amount });
	}

	/** Holds every amount in every budget of the chain, or throws BudgetExhaustedError and holds nothing. */
	reserveAll(amounts: BudgetAmounts): Reservation {
		const entries = checkAmounts(amounts);
		const chain = this.chain();
		// Checked everywhere before anything is held, so a refusal leaves no partial hold behind.
		for (const budget of chain) {
			for (const [counter, amount] of entries) {
				const limit = budget.limits[counter];
				const committed = budget.used[counter] + budget.held[counter];
				if (limit !== undefined && committed + amount > limit) {
					const err = new BudgetExhaustedError(counter, budget.scope, limit, committed, amount);
					this.firstRefusal ??= err;
					throw err;
				}
			}
		}
		for (const budget of chain) for (const [counter, amount] of entries) budget.held[counter] += amount;
		const reservation = new Reservation(this, Object.fromEntries(entries));
		this.open.add(reservation);
		return reservation;
	}

	/**
	 * Replaces what the reservation held with what was used. Use beyond a limit is charged all the
	 * same (the work already happened) and returned, so the caller can report it; with the counter
	 * over its limit, every later reservation of it fails. A number settles a one-counter
	 * reservation; in a mapping, a counter left out is settled at what it held.
	 */
	settle(reservation: Reservation, actual?: number | BudgetAmounts): BudgetOverrun[] {
		this.checkOpen(reservation, "settled");
		const reserved = Object.entries(reservation.amounts) as [BudgetCounter, number][];
		let charged: Map<BudgetCounter, number>;
		if (typeof actual === "number") {
			if (reserved.length !== 1) throw new BudgetReservationError(`a reservation of ${reserved.length} counters needs a mapping to settle`);
			charged = new Map(checkAmounts({ [reserved[0]![0]]: actual }));
		} else {
			charged = new Map(reserved);
			for (const [counter, amount] of checkAmounts(actual ?? {})) {
				if (!charged.has(counter)) throw new BudgetReservationError(`${counter} was not reserved, so it cannot be settled`);
				charged.set(counter, amount);
			}
		}
		// Closed only once the settlement is known to be well-formed, so a bad call leaves the hold in place.
		this.open.delete(reservation);
		const overruns: BudgetOverrun[] = [];
		for (const budget of this.chain()) {
			for (const [counter, amount] of reserved) budget.held[counter] -= amount;
			for (const [counter, amount] of charged) {
				budget.used[counter] += amount;
				const limit = budget.limits[counter];
				if (limit !== undefined && amount > 0 && budget.used[counter] > limit) {
					overruns.push({ counter, scope: budget.scope, limit, used: budget.used[counter] });
				}
			}
		}
		return overruns;
	}

	/**
	 * Counts use that earlier runs of this budget's owner settled (a resumed session's), as used in
	 * this budget only: its ancestors (this process's host budget) were not charged for that work.
	 * Over a limit, every later reservation of the counter fails.
	 */
	carry(amounts: BudgetAmounts): void {
		for (const [counter, amount] of checkAmounts(amounts)) this.used[counter] += amount;
	}

	/** Returns what the reservation held: the work never started. */
	release(reservation: Reservation): void {
		this.checkOpen(reservation, "released");
		this.open.delete(reservation);
		for (const budget of this.chain()) {
			for (const [counter, amount] of Object.entries(reservation.amounts) as [BudgetCounter, number][]) budget.held[counter] -= amount;
		}
	}

	/** Settled use of every counter, with this budget's own limits. */
	usage(): BudgetUsage {
		const out = {} as BudgetUsage;
		for (const counter of BUDGET_COUNTERS) {
			const entry: CounterUsage = { used: this.used[counter] };
			const limit = this.limits[counter];
			if (limit !== undefined) entry.limit = limit;
			out[counter] = entry;
		}
		return out;
	}

	/** What running work holds of a counter right now. */
	holding(counter: BudgetCounter): number {
		return this.held[counter];
	}

	private checkOpen(reservation: Reservation, how: string): void {
		if (reservation.budget !== this) throw new BudgetReservationError(`a reservation of the ${reservation.budget.scope} budget cannot be ${how} by the ${this.scope} budget`);
		if (!this.open.has(reservation)) throw new BudgetReservationError(`this reservation was already settled or released`);
	}

	private chain(): Budget[] {
		const chain: Budget[] = [];
		for (let b: Budget | undefined = this; b; b = b.parent) chain.push(b);
		return chain;
	}
}
