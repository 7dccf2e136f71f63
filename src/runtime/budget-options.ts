/** Budget limits a host passed to the embedding API, checked before a runtime or session holds them. */
import { checkBudgetLimits } from "../kernel/budget/budget-limits.js";
import type { BudgetLimits } from "../kernel/budget/budget-types.js";
import { RuntimeConfigError } from "./runtime-config-error.js";

/** `label` names the option in the one-line error, e.g. `budget` or `turnBudget`. */
export function budgetOption(value: unknown, label: string): BudgetLimits {
	try {
		return checkBudgetLimits(value, label);
	} catch (err) {
		throw new RuntimeConfigError(err instanceof Error ? err.message : String(err));
	}
}

/** The limits a session runs under, for its `session.started` audit record; absent when there are none. */
export function budgetRecord(limits: { host: BudgetLimits; session: BudgetLimits; turn: BudgetLimits }): Record<string, BudgetLimits> | undefined {
	const set = Object.entries(limits).filter(([, l]) => Object.keys(l).length > 0);
	return set.length === 0 ? undefined : Object.fromEntries(set);
}
