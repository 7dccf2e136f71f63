import { describe, expect, it } from "vitest";
import type { TodoItem } from "../kernel/evidence/event-types.js";
import type { HumanPrimitives } from "../kernel/kernel-human.js";
import { askUserTool, NOBODY_THERE } from "./ask-user.js";
import { todoWriteTool } from "./todo-write.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext } from "./tool.js";

function context(extra: Partial<ToolContext>): ToolContext {
	return { kernel: {} as ToolContext["kernel"], callId: "call_1_1_1", signal: new AbortController().signal, limits: DEFAULT_TOOL_LIMITS, ...extra };
}

function person(answer: string | undefined): HumanPrimitives<string, string | undefined> & { asked: string[] } {
	const asked: string[] = [];
	return {
		resource: "human:user",
		asked,
		ask: async (q) => {
			asked.push(q);
			return answer;
		},
	};
}

describe("todo_write", () => {
	it("records the whole list and reads it back to the model", async () => {
		const recorded: TodoItem[][] = [];
		const items: TodoItem[] = [
			{ content: "read the code", status: "completed" },
			{ content: "fix the bug", status: "in_progress" },
			{ content: "run the tests", status: "pending" },
		];
		const result = await todoWriteTool.execute({ items }, context({ recordTodos: async (i) => void recorded.push(i) }));
		expect(recorded).toEqual([items]);
		expect(result.output).toContain("(1/3 completed)");
		expect(result.output).toContain("[>] fix the bug");
	});

	it("refuses two items in progress, recording nothing", async () => {
		const recorded: TodoItem[][] = [];
		const items: TodoItem[] = [
			{ content: "a", status: "in_progress" },
			{ content: "b", status: "in_progress" },
		];
		await expect(todoWriteTool.execute({ items }, context({ recordTodos: async (i) => void recorded.push(i) }))).rejects.toThrow("at most one item may be in_progress, got 2");
		expect(recorded).toEqual([]);
	});
});

describe("ask_user", () => {
	it("puts the question to the person and returns their answer", async () => {
		const human = person("use tabs");
		const result = await askUserTool.execute({ question: "tabs or spaces?" }, context({ human }));
		expect(human.asked).toEqual(["tabs or spaces?"]);
		expect(result.output).toBe("The person answered: use tabs");
	});

	it("says nobody is there when no one can answer (automation)", async () => {
		const result = await askUserTool.execute({ question: "tabs or spaces?" }, context({ human: person(undefined) }));
		expect(result.output).toBe(NOBODY_THERE);
	});
});
