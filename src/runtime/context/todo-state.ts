/** The session's todo list as its latest `todo.updated` event left it: compaction keeps it whatever the summary says. */
import { TODO_STATUSES, type TodoItem } from "../../kernel/evidence/event-types.js";

export interface TodoState {
	items: TodoItem[];
	/** 1-based position of the event in the session's stream. */
	event: number;
}

const STATUSES: ReadonlySet<string> = new Set(TODO_STATUSES);

/** The latest well-formed `todo.updated` event's items; undefined when the session has none. */
export function latestTodo(events: readonly { kind: string; payload: unknown }[]): TodoState | undefined {
	for (let i = events.length - 1; i >= 0; i--) {
		const event = events[i]!;
		if (event.kind !== "todo.updated") continue;
		const items = (event.payload as { items?: unknown }).items;
		if (!Array.isArray(items)) continue;
		const valid = items.filter((it): it is TodoState["items"][number] => typeof it?.content === "string" && STATUSES.has(it?.status));
		return { items: valid.map((it) => ({ content: it.content, status: it.status })), event: i + 1 };
	}
	return undefined;
}

export function renderTodo(todo: TodoState): string {
	if (todo.items.length === 0) return "Todo list: empty.";
	return ["Todo list (the latest todo_write, kept verbatim):", ...todo.items.map((it) => `- [${it.status}] ${it.content}`)].join("\n");
}
