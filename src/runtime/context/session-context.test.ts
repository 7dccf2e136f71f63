import { describe, expect, it } from "vitest";
import { todoReader } from "./session-context.js";

type Ev = { kind: string; payload: unknown };
const todo = (content: string): Ev => ({ kind: "todo.updated", payload: { items: [{ content, status: "pending" }] } });

describe("the todo reader", () => {
	it("reads only the events since its last look and keeps the latest list with its place in the stream", async () => {
		const stream: Ev[] = [{ kind: "turn.started", payload: {} }, todo("a")];
		const asked: number[] = [];
		const read = todoReader(async (after) => {
			asked.push(after);
			return stream.slice(after);
		});
		expect(await read()).toEqual({ items: [{ content: "a", status: "pending" }], event: 2 });
		stream.push({ kind: "tool.completed", payload: {} }, { kind: "todo.updated", payload: { items: "not a list" } });
		// A malformed later update leaves the latest well-formed one in force, as a whole-stream read would.
		expect(await read()).toEqual({ items: [{ content: "a", status: "pending" }], event: 2 });
		stream.push(todo("b"));
		expect(await read()).toEqual({ items: [{ content: "b", status: "pending" }], event: 5 });
		expect(asked).toEqual([0, 2, 4]);
	});

	it("answers overlapping looks one after the other, counting each event once", async () => {
		const stream: Ev[] = [todo("a"), todo("b")];
		const read = todoReader(async (after) => stream.slice(after));
		const [x, y] = await Promise.all([read(), read()]);
		expect(x?.event).toBe(2);
		expect(y?.event).toBe(2);
		stream.push(todo("c"));
		expect((await read())?.event).toBe(3);
	});

	it("has nothing to say for a session without a todo list", async () => {
		expect(await todoReader(async () => [{ kind: "turn.started", payload: {} }])()).toBeUndefined();
	});
});
