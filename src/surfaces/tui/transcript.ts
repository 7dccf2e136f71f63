/**
 * The chat's transcript: events of the running session folded into entries and tool cards. What
 * it keeps is already redacted: events come redacted from the evidence, and everything else (the
 * streamed answer, the output the model was given, an ask's diff, notices) passes the session's
 * redactor on its way in, so nothing drawn from here can show a value the evidence masks. Text is
 * kept as written; the display rule is applied where it is drawn (card-lines.ts, screen.ts).
 */
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { type CardStatus, type Entry, TAIL_LINES, type ToolCard } from "./chat-state.js";

/** Masks what the evidence masks (Runtime.redactText), with the secrets the session has learned so far. */
export type RedactText = (text: string) => string;

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
	/** The answer as it streams, raw; moved into the transcript when the model's response is recorded. */
	private stream = "";

	constructor(private readonly redact: RedactText) {}

	/**
	 * The streamed answer as far as it may be drawn: redacted, and without its last word until the
	 * word ends, since a secret arriving in pieces matches the redactor only once it is whole.
	 */
	get streaming(): string {
		return this.redact(this.stream.slice(0, this.stream.search(/\S*$/)));
	}

	/** A piece of the answer as the provider streams it. */
	streamed(delta: string): void {
		this.stream += delta;
	}

	get entries(): readonly Entry[] {
		return this.list;
	}

	clear(): void {
		this.list = [];
		this.cards.clear();
		this.stream = "";
	}

	add(entry: NewEntry): void {
		const redacted = entry.kind === "tool" ? entry : { ...entry, text: this.redact(entry.text) };
		this.list = [...this.list, { ...redacted, id: this.nextId++ } as Entry];
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
			const all = [...(c.tail ?? []), ...lines.map((line) => this.redact(line))];
			const hidden = Math.max(0, all.length - TAIL_LINES);
			return { ...c, tail: all.slice(hidden), hiddenLines: (c.hiddenLines ?? 0) + hidden };
		});
	}

	/** The output the model was given for a call: its last lines stay on the card. */
	toolResult(callId: string, content: string): void {
		// The model's copy may be unmasked (a model cleared for secrets reads them): redacted whole, then split.
		const lines = this.redact(content).replace(/\n+$/, "").split("\n");
		this.update(callId, (c) => (c.status === "completed" || c.status === "failed" ? { ...c, tail: lines.slice(-TAIL_LINES), hiddenLines: Math.max(0, lines.length - TAIL_LINES), closed: true } : c));
	}

	attachDiff(callId: string, diff: string): void {
		this.update(callId, (c) => ({ ...c, diff: this.redact(diff) }));
	}

	apply(event: AnyWardenEvent): void {
		// A sub-agent's own calls are on its session; the parent's card for the `agent` call stands for them.
		if (event.lineage !== undefined) return;
		const status = STATUS_OF[event.kind];
		switch (event.kind) {
			case "model.responded": {
				const text = (event.payload.text ?? this.redact(this.stream)).trim();
				this.stream = "";
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
				if (this.stream.trim() !== "") {
					this.add({ kind: "assistant", text: this.stream.trim() });
					this.stream = "";
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
