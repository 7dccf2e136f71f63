/** Human-readable lines for the events of a run (the `--json` mode prints the events themselves). */
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { clipped, contentLines, shownLines } from "./shown-lines.js";

const MAX_ARGS = 160;

function short(value: unknown): string {
	return clipped(typeof value === "string" ? value : JSON.stringify(value), MAX_ARGS);
}

function tag(payload: { call_id: string; tool?: string }): string {
	return payload.tool ? `${payload.tool} [${payload.call_id}]` : payload.call_id;
}

/** The event as printed for a person: its lines through the display rule, without the last newline. */
export function shownEvent(event: AnyWardenEvent): string | undefined {
	const lines = eventLines(event);
	return lines === undefined ? undefined : shownLines(lines).slice(0, -1);
}

/** The event's lines as written, before the display rule (a surface that draws them applies its own). */
export function renderEvent(event: AnyWardenEvent): string | undefined {
	return eventLines(event)?.join("\n");
}

/** A sub-agent's event is indented under its parent's call, one step per level of nesting. */
export function eventLines(event: AnyWardenEvent): string[] | undefined {
	const lines = ownEventLines(event);
	if (lines === undefined || event.lineage === undefined) return lines;
	const margin = `${"  ".repeat(event.lineage.depth)}┆ `;
	return lines.map((l) => (l === "" ? l : `${margin}${l}`));
}

/** Each event is one line, but for the few that lay out several (a value's own newlines stay in its line). */
function ownEventLines(event: AnyWardenEvent): string[] | undefined {
	const line = ownEventLine(event);
	if (line !== undefined) return [line];
	switch (event.kind) {
		case "session.started":
			return [`session ${event.session}`, `  workspace ${event.payload.workspace} · mode ${event.payload.mode} · model ${event.payload.model}`];
		case "turn.completed": {
			const p = event.payload;
			const head = `turn ${event.turn} ${p.status} after ${p.steps} model call${p.steps === 1 ? "" : "s"}`;
			const tail = p.error ? `: ${p.error}` : "";
			return p.text ? [`${head}${tail}`, "", ...contentLines(p.text), ""] : [`${head}${tail}`];
		}
		default:
			return undefined;
	}
}

function ownEventLine(event: AnyWardenEvent): string | undefined {
	switch (event.kind) {
		case "turn.started":
			return `turn ${event.turn}: ${short(event.payload.input)}`;
		case "model.responded": {
			const p = event.payload;
			const calls = p.tool_calls === 0 ? "final answer" : `${p.tool_calls} tool call${p.tool_calls === 1 ? "" : "s"}`;
			const context = p.context_tokens !== undefined && p.context_window !== undefined ? ` · context ${p.context_tokens}/${p.context_window} tokens` : "";
			return `  model step ${p.step} → ${calls}${context}`;
		}
		case "model.retried": {
			const p = event.payload;
			return `  model step ${p.step}: ${p.reason}, retrying in ${(p.delay_ms / 1000).toFixed(1)} s (attempt ${p.attempt + 1} of ${p.max_attempts})`;
		}
		case "tool.proposed":
			return `  ● ${event.payload.tool} ${short(event.payload.arguments)}  [${event.payload.call_id}]`;
		case "tool.invalid":
			return `    ✗ ${tag(event.payload)} invalid: ${event.payload.error}`;
		case "permission.decided": {
			const p = event.payload;
			return `    ${p.decision.toUpperCase()} (${p.layer}) ${p.reason}`;
		}
		case "permission.confirmed":
			return `    ${tag(event.payload)} ${event.payload.approved ? "approved" : "not approved"} (${event.payload.by})`;
		case "ask.opened":
			return `    ? ask ${event.payload.ask}: ${event.payload.kind} of ${event.payload.tool} ${event.payload.resource} waits for an answer`;
		case "ask.answered":
			return `    ask ${event.payload.ask}: ${event.payload.answer} (by ${event.payload.answered_by})`;
		case "ask.expired":
			return `    ask ${event.payload.ask} expired: ${event.payload.why}`;
		case "tool.completed":
			return `    ✓ ${tag(event.payload)} completed in ${event.payload.duration_ms} ms${event.payload.truncated ? " (output truncated for the model)" : ""}`;
		case "tool.failed":
			return `    ✗ ${tag(event.payload)} failed: ${event.payload.error}`;
		case "tool.cancelled":
			return `    ⊘ ${tag(event.payload)} cancelled: ${event.payload.reason}`;
		case "tool.denied":
			return `    ⊘ ${tag(event.payload)} refused; the model was told not to route around it`;
		case "effect.recorded":
			return `    ↳ ${event.payload.call_id} effect ${event.payload.effect} ${short(event.payload.resource)} (audit #${event.payload.audit_seq})`;
		case "budget.exhausted": {
			const p = event.payload;
			const what = p.call_id ? ` [${p.call_id}]` : " (model call)";
			return `    ⊘ budget exhausted${what}: ${p.counter} ${p.used}+${p.requested} over the ${p.scope} limit of ${p.limit}`;
		}
		case "subagent.started": {
			const p = event.payload;
			return `    ⇢ ${p.call_id} sub-agent ${p.child_session} started (depth ${p.depth}, ${p.mode}, tools ${p.tools.join(", ") || "none"})`;
		}
		case "subagent.completed": {
			const p = event.payload;
			return `    ⇠ ${p.call_id} sub-agent ${p.child_session} ${p.status} (result ${p.result_used})`;
		}
		case "skill.activated": {
			const p = event.payload;
			return `    ✦ ${p.call_id} skill ${p.name} active (${p.source}, ${p.trusted ? "trusted" : "untrusted"}${p.allowed_tools ? `, allowed-tools ${p.allowed_tools.join(" ")}` : ""})`;
		}
		case "compaction.started": {
			const p = event.payload;
			const why = p.reason === "requested" ? "asked by the host" : `${p.tokens} tokens would pass the limit of ${p.limit} (window ${p.window})`;
			return `  ⇊ compaction ${p.compaction}: ${why}; summarising ${p.summarising} item(s)`;
		}
		case "compaction.completed": {
			const p = event.payload;
			return `  ⇊ compaction ${p.compaction}: ${p.summarised} item(s) ${p.first}…${p.last} now ${p.summary_ref}, ${p.tokens_before} → ${p.tokens_after} tokens`;
		}
		case "compaction.failed": {
			const p = event.payload;
			return `  ✗ compaction ${p.compaction} failed (${p.failures} in a row): ${p.error}${p.gave_up ? "; giving up" : ""}`;
		}
		case "session.ended":
			return `session ended (${event.payload.status})`;
		default:
			return undefined;
	}
}
