/** The chat's transcript: events of the running session folded into entries and tool cards. */
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { type CardStatus, type Entry, TAIL_LINES, type ToolCard } from "./chat-state.js";
import { displayLine } from "./display-line.js";

/** An entry before the transcript numbers it. */
export type NewEntry = Entry extends infer E ? (E extends Entry ? Omit<E, "id"> : never) : never;

/** How a card's status follows from each event that speaks of its call. */
const STATUS_OF: Partial<Record<AnyWardenEvent["kind"], CardStatus>> = {
	"tool.proposed": "proposed",
	"tool.invalid": "invalid",
	"tool.started": "running",
	"tool.completed": "completed",
	"tool.failed": "failed",
	"tool.cancelled": "cancelled",
	"tool.denied": "denied",
};

export class Transcript {
	private list: Entry[] = [];
	private nextId = 1;
	private readonly cards = new Map<string, ToolCard>();
	/** The answer as it streams; moved into the transcript when the model's response is recorded. */
	streaming = "";

	get entries(): readonly Entry[] {
		return this.list;
	}

	clear(): void {
		this.list = [];
		this.cards.clear();
		this.streaming = "";
	}

	add(entry: NewEntry): void {
		this.list = [...this.list, { ...entry, id: this.nextId++ } as Entry];
	}

	notice(text: string, tone: "info" | "error" | "ok" = "info"): void {
		this.add({ kind: "notice", text, tone });
	}

	/** Running cards, for Esc to cancel. */
	running(): string[] {
		return [...this.cards.values()].filter((c) => c.status === "running").map((c) => c.callId);
	}

	card(callId: string): ToolCard | undefined {
		return this.cards.get(callId);
	}

	/** A running command's output as it is written: the card's live tail, until the model's copy replaces it. */
	liveOutput(callId: string, lines: readonly string[]): void {
		this.update(callId, (c) => {
			if (c.status !== "running") return c;
			const all = [...(c.tail ?? []), ...lines.map(displayLine)];
			const hidden = Math.max(0, all.length - TAIL_LINES);
			return { ...c, tail: all.slice(hidden), hiddenLines: (c.hiddenLines ?? 0) + hidden };
		});
	}

	/** The output the model was given for a call: its last lines stay on the card. */
	toolResult(callId: string, content: string): void {
		const lines = content.replace(/\n+$/, "").split("\n").map(displayLine);
		this.update(callId, (c) => (c.status === "completed" || c.status === "failed" ? { ...c, tail: lines.slice(-TAIL_LINES), hiddenLines: Math.max(0, lines.length - TAIL_LINES), closed: true } : c));
	}

	attachDiff(callId: string, diff: string): void {
		this.update(callId, (c) => ({ ...c, diff }));
	}

	apply(event: AnyWardenEvent): void {
		// A sub-agent's own calls are on its session; the parent's card for the `agent` call stands for them.
		if (event.lineage !== undefined) return;
		const status = STATUS_OF[event.kind];
		switch (event.kind) {
			case "model.responded": {
				const text = (event.payload.text ?? this.streaming).trim();
				this.streaming = "";
				if (text !== "") this.add({ kind: "assistant", text });
				return;
			}
			case "tool.proposed": {
				const card: ToolCard = { callId: event.payload.call_id, tool: event.payload.tool, arguments: event.payload.arguments, status: "proposed" };
				this.cards.set(card.callId, card);
				this.add({ kind: "tool", card });
				return;
			}
			case "tool.invalid":
				this.ensure(event.payload.call_id, event.payload.tool);
				this.update(event.payload.call_id, (c) => ({ ...c, status: "invalid", error: event.payload.error, closed: true }));
				return;
			case "permission.decided": {
				const p = event.payload;
				this.update(p.call_id, (c) => ({
					...c,
					decision: { decision: p.decision, layer: p.layer, reason: p.reason, ...(p.rule ? { rule: p.rule } : {}) },
					status: p.decision === "ask" ? "asking" : p.decision === "deny" ? "denied" : c.status,
				}));
				return;
			}
			case "permission.confirmed": {
				const p = event.payload;
				const how = p.response ? p.response.replace("_", " ") : p.approved ? "approved" : "not approved";
				this.update(p.call_id, (c) => ({ ...c, confirmed: `${how} (${p.by})`, status: p.approved ? c.status : "denied" }));
				return;
			}
			case "tool.started":
				this.update(event.payload.call_id, (c) => ({ ...c, status: "running", startedAt: Date.parse(event.time) }));
				return;
			case "tool.completed":
			case "tool.failed":
				this.update(event.payload.call_id, (c) => ({
					...c,
					status: status as CardStatus,
					durationMs: event.payload.duration_ms,
					...(event.kind === "tool.failed" ? { error: event.payload.error } : {}),
				}));
				return;
			case "tool.cancelled":
			case "tool.denied":
				this.update(event.payload.call_id, (c) => ({
					...c,
					status: status as CardStatus,
					...(c.startedAt !== undefined ? { durationMs: Date.parse(event.time) - c.startedAt } : {}),
					error: event.payload.reason,
					closed: true,
				}));
				return;
			case "budget.exhausted": {
				const p = event.payload;
				this.notice(`budget exhausted: ${p.counter} ${p.used}+${p.requested} over the ${p.scope} limit of ${p.limit}`, "error");
				return;
			}
			case "subagent.started":
				this.notice(`sub-agent ${event.payload.child_session.slice(0, 8)} started for ${event.payload.call_id} (${event.payload.mode})`);
				return;
			case "turn.completed": {
				const p = event.payload;
				if (this.streaming.trim() !== "") {
					this.add({ kind: "assistant", text: this.streaming.trim() });
					this.streaming = "";
				}
				for (const [callId, card] of this.cards) if (!card.closed) this.update(callId, (c) => ({ ...c, closed: true }));
				if (p.status !== "completed") this.notice(`turn ${event.turn} ${p.status}${p.error ? `: ${p.error}` : ""}`, "error");
				return;
			}
			default:
				return;
		}
	}

	private ensure(callId: string, tool: string): void {
		if (this.cards.has(callId)) return;
		const card: ToolCard = { callId, tool, arguments: undefined, status: "proposed" };
		this.cards.set(callId, card);
		this.add({ kind: "tool", card });
	}

	/** Cards are replaced, not mutated, so a renderer comparing entries sees the change. */
	private update(callId: string, change: (card: ToolCard) => ToolCard): void {
		const card = this.cards.get(callId);
		if (!card) return;
		const next = change(card);
		this.cards.set(callId, next);
		this.list = this.list.map((e) => (e.kind === "tool" && e.card.callId === callId ? { ...e, card: next } : e));
	}
}
