/**
 * A session's plan: the final answer of its last turn completed in plan mode. It is read from the
 * session's own events (each run's session.started names the mode it ran in), so nothing beyond
 * the evidence has to be stored for it.
 */
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { contentLines, shownLines } from "./shown-lines.js";

export function sessionPlan(events: readonly AnyWardenEvent[]): string | undefined {
	let mode: string | undefined;
	let plan: string | undefined;
	for (const event of events) {
		if (event.lineage !== undefined) continue;
		if (event.kind === "session.started") mode = event.payload.mode;
		else if (event.kind === "turn.completed" && mode === "plan" && event.payload.status === "completed" && event.payload.text?.trim()) plan = event.payload.text.trim();
	}
	return plan;
}

/** The plan as `sessions show` prints it, indented under its heading. */
export function renderPlan(plan: string): string {
	return shownLines(["  plan (the last answer in plan mode):", ...contentLines(plan).map((l) => `    ${l}`)]);
}
