import { describe, expect, it } from "vitest";
import { UpdateMapper } from "./event-updates.js";
import { planEntries, TODO_STATUS } from "./todo-plan.js";

describe("the todo list as an ACP plan, one row per status", () => {
	const rows: [string, string, string][] = [
		["pending", "pending", "write tests"],
		["in_progress", "in_progress", "write tests"],
		["completed", "completed", "write tests"],
		["blocked", "pending", "write tests (blocked)"],
		["cancelled", "completed", "write tests (cancelled)"],
	];
	it("covers every status of the contract", () => {
		expect(rows.map((r) => r[0]).sort()).toEqual(Object.keys(TODO_STATUS).sort());
	});
	for (const [status, acp, content] of rows) {
		it(`${status} → ${acp}`, () => {
			expect(planEntries({ items: [{ content: "write tests", status }] })).toEqual([{ content, priority: "medium", status: acp }]);
		});
	}
	it("leaves out items of unknown shape and keeps the order of the rest", () => {
		expect(planEntries({ items: [{ content: "a", status: "pending" }, { content: "b", status: "later" }, 7, { content: "c", status: "completed" }] }).map((e) => e.content)).toEqual(["a", "c"]);
		expect(planEntries(null)).toEqual([]);
	});
	it("a todo.updated event, as the todo_write tool emits it, becomes one plan update with the whole list", () => {
		const mapper = new UpdateMapper("/w", false);
		const event = { kind: "todo.updated", session: "s", turn: 1, time: "t", payload: { items: [{ content: "read", status: "completed" }, { content: "fix", status: "in_progress" }] } };
		expect(mapper.forEvent(event)).toEqual([
			{
				sessionUpdate: "plan",
				entries: [
					{ content: "read", priority: "medium", status: "completed" },
					{ content: "fix", priority: "medium", status: "in_progress" },
				],
			},
		]);
	});
});
