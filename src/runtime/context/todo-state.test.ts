import { describe, expect, it } from "vitest";
import { latestTodo, renderTodo } from "./todo-state.js";

describe("latestTodo", () => {
	it("takes the latest todo.updated event's items and its position in the stream", () => {
		const events = [
			{ kind: "session.started", payload: {} },
			{ kind: "todo.updated", payload: { items: [{ content: "old", status: "pending" }] } },
			{ kind: "tool.completed", payload: {} },
			{ kind: "todo.updated", payload: { items: [{ content: "a", status: "completed" }, { content: "b", status: "blocked" }, { content: 3, status: "pending" }] } },
		];
		expect(latestTodo(events)).toEqual({ items: [{ content: "a", status: "completed" }, { content: "b", status: "blocked" }], event: 4 });
		expect(renderTodo(latestTodo(events)!)).toBe("Todo list (the latest todo_write, kept verbatim):\n- [completed] a\n- [blocked] b");
	});

	it("is undefined without one, and says an empty list is empty", () => {
		expect(latestTodo([{ kind: "turn.started", payload: {} }])).toBeUndefined();
		expect(renderTodo({ items: [], event: 2 })).toBe("Todo list: empty.");
	});
});
