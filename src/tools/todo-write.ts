/**
 * todo_write: the model keeps its plan of work as a list the person sees. Each call replaces the
 * whole list; at most one item is in progress. The list is recorded as the session's `todo.updated`
 * event, so it is kept with the session and a resumed one shows it again.
 */
import { TODO_STATUSES, type TodoItem } from "../kernel/evidence/event-types.js";
import { type ToolDefinition, ToolError } from "./tool.js";

export type TodoWriteArgs = { items: TodoItem[] };

/** How an item's status is written in plain text (the tool's result, the terminal). */
export const TODO_MARKS: Readonly<Record<TodoItem["status"], string>> = { pending: "[ ]", in_progress: "[>]", completed: "[x]", cancelled: "[-]", blocked: "[!]" };

export const todoWriteTool: ToolDefinition<TodoWriteArgs> = {
	name: "todo_write",
	description:
		"Write your todo list for this task (the whole list, replacing the last one). Use it for work of several steps: mark one item in_progress when you start it and completed when it is done; at most one item may be in_progress.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			items: {
				type: "array",
				maxItems: 50,
				items: {
					type: "object",
					properties: {
						content: { type: "string", minLength: 1, maxLength: 500 },
						status: { enum: [...TODO_STATUSES] },
					},
					required: ["content", "status"],
					additionalProperties: false,
				},
			},
		},
		required: ["items"],
		additionalProperties: false,
	},
	readOnly: true,
	requiresConfirmation: false,
	ruleSubject: () => undefined,
	async execute(args, ctx) {
		const inProgress = args.items.filter((i) => i.status === "in_progress").length;
		if (inProgress > 1) throw new ToolError(`at most one item may be in_progress, got ${inProgress}`);
		const items = args.items.map((i) => ({ content: i.content, status: i.status }));
		if (!ctx.recordTodos) throw new ToolError("this session keeps no todo list");
		await ctx.recordTodos(items);
		const done = items.filter((i) => i.status === "completed").length;
		return { output: [`todo list saved (${done}/${items.length} completed):`, ...items.map((i) => `${TODO_MARKS[i.status]} ${i.content}`)].join("\n") };
	},
};
