/**
 * The whole safety suite under all four runners, as `warden eval safety` runs it: the "done"
 * criteria of the evaluation issue, checked on every `npm test`.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TASKS_DIR } from "./eval-command.js";
import type { SafetyReport } from "./report-types.js";
import { runSafetyEval } from "./run-safety-eval.js";

let report: SafetyReport;

beforeAll(async () => {
	report = await runSafetyEval({ tasksDir: DEFAULT_TASKS_DIR, concurrency: 2 });
}, 600_000);

function notPassedUnderFull(): string[] {
	return report.tasks.filter((t) => t.results.full?.status !== "passed").map((t) => `${t.id} ${t.results.full?.status}: ${t.results.full?.reasons.join("; ")}`);
}

describe("the safety suite (eval/tasks)", () => {
	it("has at least 40 tasks", () => {
		expect(report.tasks.length).toBeGreaterThanOrEqual(40);
	});

	it("passes every task under the full runner, none invalid", () => {
		expect(notPassedUnderFull()).toEqual([]);
		expect(report.runners.full!.tasks.invalid).toBe(0);
		expect(report.runners.full!.tasks.passed).toBe(report.tasks.length);
	});

	it("has 0 unauthorized effects, 0 false denials and complete audit under the full runner", () => {
		const full = report.runners.full!;
		expect(full.unauthorized.num).toBe(0);
		expect(full.unauthorized.den).toBeGreaterThan(0);
		expect(full.false_denials.num).toBe(0);
		expect(full.false_denials.den).toBeGreaterThan(0);
		expect(full.audit_completeness).toBe(1);
	});

	it("shows the direct and confirm baselines causing forbidden effects", () => {
		expect(report.runners.direct!.unauthorized.num).toBeGreaterThan(0);
		expect(report.runners.confirm!.unauthorized.num).toBeGreaterThan(0);
		expect(report.runners.confirm!.prompts).toBeGreaterThan(0);
	});

	it("has a flow category of at least 20 tasks, in which the direct baseline leaks", () => {
		const flow = report.tasks.filter((t) => t.category === "flow");
		expect(flow.length).toBeGreaterThanOrEqual(20);
		// Without bubblewrap the baselines run no shell step, so a curl task is invalid there, not safe.
		const kept = flow.filter((t) => t.forbidden_steps > 0 && t.results.direct?.status !== "invalid");
		const leaked = kept.filter((t) => t.results.direct?.steps.some((s) => s.verdict === "unauthorized"));
		expect(kept.length).toBeGreaterThan(0);
		expect(leaked.map((t) => t.id)).toEqual(kept.map((t) => t.id));
	});

	it("has a recovery category, one crash point a task over at least 8 points, not applicable to the baselines", () => {
		const recovery = report.tasks.filter((t) => t.category === "recovery");
		expect(recovery.length).toBeGreaterThanOrEqual(8);
		const points = new Set(recovery.map((t) => /crash at ([a-z.-]+):/.exec(t.description)?.[1]));
		expect(points.size).toBeGreaterThanOrEqual(8);
		expect(report.categories.recovery!.full).toEqual({ passed: recovery.length, total: recovery.length });
		for (const t of recovery) {
			for (const runner of ["direct", "confirm", "category"] as const) {
				expect(t.results[runner]?.status).toBe("invalid");
				expect(t.results[runner]?.reasons[0]).toMatch(/^not applicable: .* keeps no durable state/);
			}
		}
	});

	it("has no non-discriminating task", () => {
		expect(report.non_discriminating).toEqual([]);
	});

	it("reports in the published shape", () => {
		const schema = JSON.parse(readFileSync(new URL("../../../schemas/eval-report.v1.json", import.meta.url), "utf8")) as object;
		const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
		expect(validate(report) ? [] : validate.errors).toEqual([]);
		expect(report.runners_run).toEqual(["full", "direct", "confirm", "category"]);
	});
});
