/** `--budget <counter=limit>`, repeatable: session-wide limits for `warden run`. */
import { isBudgetLimit } from "../../kernel/budget/budget-limits.js";
import { BUDGET_COUNTERS, type BudgetLimits, isBudgetCounter } from "../../kernel/budget/budget-types.js";
import { UsageError } from "./cli-error.js";

/** A commander argument parser: adds one `counter=limit` to the limits given so far. */
export function parseBudgetFlag(value: string, previous: BudgetLimits | undefined): BudgetLimits {
	const match = /^([^=]+)=(.*)$/.exec(value);
	if (!match) throw new UsageError(`--budget must be <counter>=<limit>, e.g. tool_calls=20, got "${value}"`);
	const counter = match[1]!.trim();
	const text = match[2]!.trim();
	if (!isBudgetCounter(counter)) throw new UsageError(`--budget: unknown counter "${counter}"; use one of ${BUDGET_COUNTERS.join(", ")}`);
	const limit = /^\d+$/.test(text) ? Number(text) : Number.NaN;
	if (!isBudgetLimit(limit)) throw new UsageError(`--budget ${counter}: the limit must be a non-negative integer, got "${text}"`);
	if (previous?.[counter] !== undefined) throw new UsageError(`--budget ${counter} is given twice`);
	return { ...previous, [counter]: limit };
}
