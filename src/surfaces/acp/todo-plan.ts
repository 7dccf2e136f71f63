/**
 * The todo list (event `todo.updated`, written by the `todo_write` tool) as an ACP `plan`. ACP
 * knows three statuses; a blocked or cancelled item keeps its status in its text.
 */
import type { PlanEntry, PlanEntryStatus } from "@agentclientprotocol/sdk";
import type { TodoItem, TodoStatus } from "../../kernel/evidence/event-types.js";

export type { TodoItem, TodoStatus };

export const TODO_STATUS: Readonly<Record<TodoStatus, { status: PlanEntryStatus; note?: string }>> = {
	pending: { status: "pending" },
	in_progress: { status: "in_progress" },
	completed: { status: "completed" },
	blocked: { status: "pending", note: "blocked" },
	cancelled: { status: "completed", note: "cancelled" },
};

/** Plan entries in the list's order; an item of unknown shape is left out rather than guessed at. */
export function planEntries(data: unknown): PlanEntry[] {
	const items = typeof data === "object" && data !== null && Array.isArray((data as { items?: unknown }).items) ? (data as { items: unknown[] }).items : [];
	const entries: PlanEntry[] = [];
	for (const item of items) {
		if (typeof item !== "object" || item === null) continue;
		const { content, status } = item as { content?: unknown; status?: unknown };
		if (typeof content !== "string" || typeof status !== "string" || !(status in TODO_STATUS)) continue;
		const row = TODO_STATUS[status as TodoStatus];
		entries.push({ content: row.note ? `${content} (${row.note})` : content, priority: "medium", status: row.status });
	}
	return entries;
}
