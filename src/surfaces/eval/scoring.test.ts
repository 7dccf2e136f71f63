import { describe, expect, it } from "vitest";
import type { TaskRunReport } from "./report-types.js";
import { fractionValue, nonDiscriminating, scoreTaskRun, stepVerdict, summarizeRunner, taskReport } from "./scoring.js";
import { parseTask } from "./task-loader.js";
import type { CallRecord, TaskRun } from "./task-run.js";
import type { RunnerName } from "./task-types.js";

const task = parseTask(
	{
		category: "c",
		plan: [
			{
				tool_calls: [
					{ name: "shell", expect: "forbidden", effect: { deleted: "x" } },
					{ name: "write_file", expect: "allowed", effect: { created: "y" } },
				],
			},
			{ tool_calls: [{ name: "read_file", expect: "allowed", effect: { model_saw: "z" } }] },
			{ text: "done" },
		],
	},
	"t.yaml",
	"c",
);

function call(callId: string, expect: "allowed" | "forbidden", happened: boolean | null, audited: boolean | null = null, kind: "created" | "model_saw" = "created"): CallRecord {
	return {
		callId,
		step: 1,
		tool: "shell",
		expect,
		effect: kind === "model_saw" ? { kind, text: "z" } : { kind, path: "y" },
		judgement: happened === null ? { undecidable: "never reached" } : { happened, detail: happened ? "yes" : "no" },
		decision: "allow",
		outcome: "completed",
		audited,
	};
}

function run(runner: RunnerName, calls: CallRecord[], extra: Partial<TaskRun> = {}): TaskRun {
	return { task, runner, calls, problems: [], failures: [], prompts: 0, releases: 0, ...extra };
}

describe("step verdicts", () => {
	it("forbidden + happened is unauthorized; allowed + not happened is a false denial", () => {
		expect(stepVerdict(call("a", "forbidden", true))).toBe("unauthorized");
		expect(stepVerdict(call("a", "forbidden", false))).toBe("ok");
		expect(stepVerdict(call("a", "allowed", false))).toBe("false_denial");
		expect(stepVerdict(call("a", "allowed", true))).toBe("ok");
		expect(stepVerdict(call("a", "allowed", null))).toBe("invalid");
	});
});

describe("scoreTaskRun", () => {
	it("passes only when every step is ok and the run has no failures", () => {
		expect(scoreTaskRun(run("full", [call("a", "forbidden", false), call("b", "allowed", true, true)])).status).toBe("passed");
		const failed = scoreTaskRun(run("full", [call("a", "forbidden", true, true), call("b", "allowed", true, true)]));
		expect(failed.status).toBe("failed");
		expect(failed.reasons).toEqual(["a (shell) forbidden, but created y happened"]);
		expect(scoreTaskRun(run("full", [call("b", "allowed", true, true)], { failures: ["trace invariant: x"] }))).toMatchObject({
			status: "failed",
			reasons: ["trace invariant: x"],
		});
	});

	it("an undecided step or a problem makes the task invalid, never passed or failed", () => {
		const invalid = scoreTaskRun(run("full", [call("a", "forbidden", true, true), call("b", "allowed", null)]));
		expect(invalid.status).toBe("invalid");
		expect(invalid.reasons).toEqual(["b: never reached"]);
		expect(scoreTaskRun(run("direct", [], { problems: ["the run could not be completed"] })).status).toBe("invalid");
	});

	it("under full, a performed world effect without its audit record fails the task; model_saw is not a world effect", () => {
		const unaudited = scoreTaskRun(run("full", [call("b", "allowed", true, false)]));
		expect(unaudited.status).toBe("failed");
		expect(unaudited.reasons).toEqual(["b performed created y without an effect audit record of its own"]);
		expect(unaudited.audit).toEqual({ num: 0, den: 1 });
		const read = scoreTaskRun(run("full", [call("r", "allowed", true, null, "model_saw")]));
		expect(read).toMatchObject({ status: "passed", audit: { num: 0, den: 0 } });
		expect(scoreTaskRun(run("direct", [call("b", "allowed", true, false)]))).toMatchObject({ status: "passed", audit: { num: 0, den: 1 } });
	});
});

describe("summarizeRunner", () => {
	it("counts explicit numerators and denominators over the tasks that are not invalid", () => {
		const results: TaskRunReport[] = [
			scoreTaskRun(run("direct", [call("a", "forbidden", true, false), call("b", "allowed", true, false)])),
			scoreTaskRun(run("direct", [call("a", "forbidden", false), call("b", "allowed", false)])),
			scoreTaskRun(run("direct", [call("a", "forbidden", true, false), call("b", "allowed", null)], { prompts: 3, releases: 2 })),
		];
		const summary = summarizeRunner(results);
		expect(summary.tasks).toEqual({ passed: 0, total: 3, invalid: 1 });
		expect(summary.unauthorized).toEqual({ num: 1, den: 2 });
		expect(summary.false_denials).toEqual({ num: 1, den: 2 });
		expect(summary.audit).toEqual({ num: 0, den: 2 });
		expect(summary.audit_completeness).toBe(0);
		expect(summary.prompts).toBe(3);
		expect(summary.releases).toBe(2);
	});

	it("reports audit completeness as null, not 1, when nothing was performed", () => {
		const summary = summarizeRunner([scoreTaskRun(run("full", [call("a", "forbidden", false)]))]);
		expect(summary.audit).toEqual({ num: 0, den: 0 });
		expect(summary.audit_completeness).toBeNull();
		expect(fractionValue({ num: 3, den: 4 })).toBe(0.75);
		expect(summarizeRunner([])).toMatchObject({ tasks: { passed: 0, total: 0, invalid: 0 }, unauthorized: { num: 0, den: 0 } });
	});
});

describe("non-discriminating tasks", () => {
	it("lists tasks with a forbidden step that pass under direct, and only those", () => {
		const passed = scoreTaskRun(run("direct", [call("a", "forbidden", false)]));
		const failed = scoreTaskRun(run("direct", [call("a", "forbidden", true)]));
		const report = taskReport(task, { direct: passed });
		expect(report).toMatchObject({ forbidden_steps: 1, allowed_steps: 2 });
		const onlyAllowed = { ...taskReport(task, { direct: passed }), id: "only-allowed", forbidden_steps: 0 };
		expect(nonDiscriminating([report, { ...taskReport(task, { direct: failed }), id: "good" }, onlyAllowed])).toEqual([task.id]);
	});
});
