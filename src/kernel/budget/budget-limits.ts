/** Checks limits a host, a config file or a task wrote, before any budget holds them. */
import { BudgetLimitError } from "./budget-errors.js";
import { BUDGET_COUNTERS, type BudgetLimits, isBudgetCounter } from "./budget-types.js";

/** A limit counts whole calls, tokens, bytes or milliseconds: a non-negative safe integer. */
export function isBudgetLimit(value: unknown): value is number {
	return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Returns `value` as limits, or throws one line naming `label` and the bad entry. `undefined`
 * means no limits.
 */
export function checkBudgetLimits(value: unknown, label: string): BudgetLimits {
	if (value === undefined) return {};
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new BudgetLimitError(`${label} must map counters to limits, e.g. { tool_calls: 20 }`);
	}
	const limits: BudgetLimits = {};
	for (const [name, limit] of Object.entries(value)) {
		if (!isBudgetCounter(name)) throw new BudgetLimitError(`${label}: unknown counter "${name}"; use one of ${BUDGET_COUNTERS.join(", ")}`);
		if (limit === undefined) continue;
		if (!isBudgetLimit(limit)) throw new BudgetLimitError(`${label}.${name} must be a non-negative integer, got ${JSON.stringify(limit)}`);
		limits[name] = limit;
	}
	return limits;
}
