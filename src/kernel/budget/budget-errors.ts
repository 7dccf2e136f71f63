/** Why a budget refused, or was used wrongly. Each message is one line. */
import type { BudgetCounter, BudgetScope } from "./budget-types.js";

/** A reservation that does not fit: the work it was for must not start. */
export class BudgetExhaustedError extends Error {
	override name = "BudgetExhaustedError";

	constructor(
		readonly counter: BudgetCounter,
		readonly scope: BudgetScope,
		readonly limit: number,
		/** Charged so far plus what running work still holds. */
		readonly used: number,
		readonly requested: number,
	) {
		super(`budget exhausted: ${counter} would exceed the ${scope} limit of ${limit} (used ${used}, requested ${requested})`);
	}

	/** The shape of the `budget.exhausted` event and audit record. */
	toRecord(): { counter: BudgetCounter; scope: BudgetScope; limit: number; used: number; requested: number } {
		return { counter: this.counter, scope: this.scope, limit: this.limit, used: this.used, requested: this.requested };
	}
}

/** A limit or amount that is not a counter, or not a non-negative number. */
export class BudgetLimitError extends Error {
	override name = "BudgetLimitError";
}

/** A reservation settled or released twice, or handed to a budget that did not make it. */
export class BudgetReservationError extends Error {
	override name = "BudgetReservationError";
}
