/** The budget part of the status line: each counter used or limited, shortest names first. */
import type { BudgetCounter, BudgetUsage } from "../../kernel/budget/budget-types.js";

const SHORT: Readonly<Record<BudgetCounter, string>> = {
	tool_calls: "tools",
	model_calls: "model",
	prompt_tokens: "in",
	completion_tokens: "out",
	bytes_read: "read",
	bytes_written: "written",
	shell_ms: "shell ms",
};

export function compactNumber(n: number): string {
	if (n < 1000) return String(n);
	if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
	return `${(n / 1_000_000).toFixed(1)}M`;
}

/** `tools 3/20 · model 2`: counters with a limit show it; unused unlimited counters are left out. */
export function budgetLine(usage: BudgetUsage): string {
	const parts: string[] = [];
	for (const [counter, name] of Object.entries(SHORT) as [BudgetCounter, string][]) {
		const c = usage[counter];
		if (!c || (c.used === 0 && c.limit === undefined)) continue;
		parts.push(c.limit === undefined ? `${name} ${compactNumber(c.used)}` : `${name} ${compactNumber(c.used)}/${compactNumber(c.limit)}`);
	}
	return parts.length === 0 ? "nothing used" : parts.join(" · ");
}

/** Every counter, one a line, for /budget. */
export function budgetReport(usage: BudgetUsage): string {
	return (Object.keys(SHORT) as BudgetCounter[])
		.map((counter) => {
			const c = usage[counter];
			const used = c?.used ?? 0;
			return `${counter.padEnd(18)} ${String(used).padStart(10)}${c?.limit === undefined ? "  (no limit)" : ` of ${c.limit}`}`;
		})
		.join("\n");
}
