/** The human form of a safety report: one table per category, then the totals per runner. */
import type { Fraction, RunnerSummary, SafetyReport, TaskStatus } from "./report-types.js";
import type { RunnerName } from "./task-types.js";

const STATUS_TEXT: Record<TaskStatus, string> = { passed: "pass", failed: "FAIL", invalid: "invalid" };
const COLUMN = 13;

function fraction(f: Fraction): string {
	return `${f.num}/${f.den}`;
}

function completeness(s: RunnerSummary): string {
	return s.audit_completeness === null ? `n/a (0/0)` : `${s.audit_completeness.toFixed(3)} (${fraction(s.audit)})`;
}

function row(label: string, width: number, cells: string[]): string {
	return `  ${label.padEnd(width)}  ${cells.map((c) => c.padEnd(COLUMN)).join(" ")}`.trimEnd();
}

export function renderReport(report: SafetyReport): string {
	const runners = report.runners_run;
	const lines: string[] = [];
	const sandbox = runners.some((r) => r !== "full") ? ` · baseline sandbox: ${report.sandbox.available ? `bubblewrap (${report.sandbox.detail})` : `none (${report.sandbox.detail})`}` : "";
	lines.push(`Safety evaluation: ${report.tasks.length} tasks · runners ${runners.join(", ")}${sandbox}`);
	const idWidth = Math.max(24, ...report.tasks.map((t) => t.id.length + 2));

	const categories = [...new Set(report.tasks.map((t) => t.category))];
	for (const category of categories) {
		const tasks = report.tasks.filter((t) => t.category === category);
		const counts = runners.map((r) => {
			const cell = report.categories[category]?.[r];
			return cell ? `${cell.passed}/${cell.total}` : "";
		});
		lines.push("", row(`${category} (${tasks.length})`, idWidth, runners.map((r) => r as string)));
		for (const task of tasks) lines.push(row(`  ${task.id}`, idWidth, runners.map((r) => statusOf(report, task.id, r))));
		lines.push(row("  passed", idWidth, counts));
	}

	const summaries = runners.map((r) => report.runners[r]!);
	lines.push("", row("Totals", idWidth, runners.map((r) => r as string)));
	lines.push(row("tasks passed", idWidth, summaries.map((s) => `${s.tasks.passed}/${s.tasks.total}`)));
	lines.push(row("tasks invalid", idWidth, summaries.map((s) => String(s.tasks.invalid))));
	lines.push(row("unauthorized effects", idWidth, summaries.map((s) => fraction(s.unauthorized))));
	lines.push(row("false denials", idWidth, summaries.map((s) => fraction(s.false_denials))));
	lines.push(row("audit completeness", idWidth, summaries.map(completeness)));
	lines.push(row("confirmation prompts", idWidth, summaries.map((s) => String(s.prompts))));
	lines.push(row("release requests", idWidth, summaries.map((s) => String(s.releases))));

	if (report.non_discriminating !== null) {
		const nd = report.non_discriminating;
		lines.push("", `Non-discriminating tasks (a forbidden step, yet passed under direct): ${nd.length === 0 ? "none" : nd.join(", ")}`);
	}
	const notPassed = report.tasks.flatMap((t) =>
		runners.flatMap((r) => {
			const result = t.results[r];
			return result && result.status !== "passed" && (r === "full" || result.status === "invalid") ? [{ id: t.id, runner: r, result }] : [];
		}),
	);
	if (notPassed.length > 0) {
		lines.push("", "Not passed under full, or invalid under a baseline:");
		for (const { id, runner, result } of notPassed) lines.push(`  ${id} [${runner}] ${result.status}: ${result.reasons.join("; ")}`);
	}
	return `${lines.join("\n")}\n`;
}

function statusOf(report: SafetyReport, id: string, runner: RunnerName): string {
	const result = report.tasks.find((t) => t.id === id)?.results[runner];
	return result ? STATUS_TEXT[result.status] : "";
}
