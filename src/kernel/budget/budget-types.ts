/**
 * The counters a budget keeps. Budget admission limits how much otherwise-admitted work may run;
 * it never authorizes anything.
 */

export const BUDGET_COUNTERS = [
	"tool_calls",
	"model_calls",
	"prompt_tokens",
	"completion_tokens",
	"bytes_read",
	"bytes_written",
	"shell_ms",
] as const;

export type BudgetCounter = (typeof BUDGET_COUNTERS)[number];

/** Limits per counter; a counter without one is counted but never refused. */
export type BudgetLimits = Partial<Record<BudgetCounter, number>>;

/** Amounts per counter, for a reservation that holds several counters at once. */
export type BudgetAmounts = Partial<Record<BudgetCounter, number>>;

/** Where a budget sits in the chain: `host` (one Runtime), `session`, `turn`; `call` holds no limits of its own. */
export type BudgetScope = "host" | "session" | "turn" | "call" | (string & {});

/** One counter as a host sees it: what was charged, and the limit if there is one. */
export interface CounterUsage {
	used: number;
	limit?: number;
}

export type BudgetUsage = Record<BudgetCounter, CounterUsage>;

/** A settlement that charged more than a limit allowed: recorded, and every later reservation of the counter fails. */
export interface BudgetOverrun {
	counter: BudgetCounter;
	scope: BudgetScope;
	limit: number;
	used: number;
}

export function isBudgetCounter(name: string): name is BudgetCounter {
	return (BUDGET_COUNTERS as readonly string[]).includes(name);
}
