/** A tool card and an ask as lines of text with a tone each: the screen colours them, --plain prints them. */
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";
import type { CardStatus, PendingAsk, ToolCard } from "./chat-state.js";

export type Tone = "plain" | "dim" | "ok" | "error" | "warn" | "accent" | "added" | "removed";

export interface Line {
	text: string;
	tone: Tone;
}

/** The mark and tone of each card status. */
export const STATUS_MARK: Readonly<Record<CardStatus, { mark: string; tone: Tone; word: string }>> = {
	proposed: { mark: "○", tone: "dim", word: "proposed" },
	asking: { mark: "?", tone: "warn", word: "waiting for you" },
	running: { mark: "◐", tone: "accent", word: "running" },
	completed: { mark: "✓", tone: "ok", word: "completed" },
	failed: { mark: "✗", tone: "error", word: "failed" },
	cancelled: { mark: "⊘", tone: "warn", word: "cancelled" },
	denied: { mark: "⊘", tone: "error", word: "denied" },
	invalid: { mark: "✗", tone: "error", word: "invalid" },
};

const SHORT = 120;

function short(text: string, max = SHORT): string {
	const one = text.replace(/\s+/g, " ");
	return one.length > max ? `${one.slice(0, max)}…` : one;
}

/** The argument that says what a call does: the command, the path, else the JSON. */
export function callSubject(tool: string, args: unknown): string {
	const a = (args ?? {}) as Record<string, unknown>;
	if (typeof a.command === "string") return a.command;
	if (typeof a.path === "string") return a.path;
	if (typeof a.pattern === "string") return a.pattern;
	if (typeof a.url === "string") return a.url;
	if (typeof a.question === "string") return a.question;
	if (Array.isArray(a.items)) return `${a.items.length} item${a.items.length === 1 ? "" : "s"}`;
	return args === undefined ? tool : JSON.stringify(args);
}

function elapsed(card: ToolCard, now: number): string {
	if (card.durationMs !== undefined) return ` in ${formatMs(card.durationMs)}`;
	if (card.startedAt !== undefined && card.status === "running") return ` for ${formatMs(now - card.startedAt)}`;
	return "";
}

export function formatMs(ms: number): string {
	return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function diffLines(diff: string): Line[] {
	return diff
		.replace(/\n$/, "")
		.split("\n")
		.map((text) => ({
			text,
			tone: text.startsWith("+++") || text.startsWith("---") ? "dim" : text.startsWith("+") ? "added" : text.startsWith("-") ? "removed" : text.startsWith("@@") ? "accent" : "plain",
		}));
}

export function cardLines(card: ToolCard, now: number): Line[] {
	const s = STATUS_MARK[card.status];
	const lines: Line[] = [{ text: `${s.mark} ${card.tool} ${short(callSubject(card.tool, card.arguments))}  [${card.callId}]`, tone: s.tone }];
	if (card.decision) {
		const d = card.decision;
		lines.push({ text: `  ${d.decision.toUpperCase()} (${d.layer}${d.rule ? `: ${d.rule}` : ""}) ${short(d.reason)}${card.confirmed ? ` · ${card.confirmed}` : ""}`, tone: d.decision === "deny" ? "error" : d.decision === "ask" ? "warn" : "dim" });
	}
	lines.push({ text: `  ${s.word}${elapsed(card, now)}${card.error ? `: ${short(card.error)}` : ""}`, tone: s.tone });
	if (card.diff && (card.status === "completed" || card.status === "running")) lines.push(...diffLines(card.diff).map((l) => ({ text: `  ${l.text}`, tone: l.tone })));
	if (card.tail && card.tail.length > 0) {
		// A write's output repeats the diff shown above it: its first line (what was written) is enough.
		const tail = card.diff ? card.tail.slice(0, 1) : card.tail;
		const writes = card.tool === "write_file" || card.tool === "edit_file";
		if (card.hiddenLines && !card.diff) lines.push({ text: `  │ … ${card.hiddenLines} more lines above`, tone: "dim" });
		for (const t of tail) lines.push({ text: `  │ ${t}`, tone: writes ? (diffLines(t)[0]?.tone ?? "dim") : "dim" });
	}
	return lines;
}

function approvalLines(r: ConfirmationRequest): Line[] {
	const d = r.decision;
	const lines: Line[] = [
		{ text: `Allow ${r.tool} on ${r.resource}?`, tone: "warn" },
		{ text: `  asked by ${d.layer}${d.rule ? ` rule ${d.rule}` : ""}: ${d.reason}`, tone: "plain" },
		{ text: `  arguments ${JSON.stringify(r.arguments)}`, tone: "plain" },
	];
	if (r.diff) lines.push(...diffLines(r.diff).map((l) => ({ text: `  ${l.text}`, tone: l.tone })));
	const allow = r.always?.allow;
	const deny = r.always?.deny;
	if (allow) lines.push({ text: `  a persists ${"rules" in allow ? allow.rules.map((x) => `allow ${x}`).join(", ") : `no rule (${allow.why})`}`, tone: "dim" });
	if (deny) lines.push({ text: `  d persists ${"rules" in deny ? deny.rules.map((x) => `deny ${x}`).join(", ") : `no rule (${deny.why})`}`, tone: "dim" });
	return lines;
}

function releaseLines(r: ReleaseRequest): Line[] {
	return [
		{ text: `Release data to ${r.sink} once?`, tone: "warn" },
		{ text: `  ${r.why}`, tone: "plain" },
		{ text: `  payload sha256 ${r.payload_sha256}`, tone: "plain" },
		{ text: `  labels ${r.label.sensitivity}, ${r.label.integrity}${r.label.sources?.length ? ` from ${r.label.sources.map((s) => s.ref).join(", ")}` : ""}`, tone: "plain" },
		{ text: `  ${r.operation}${r.call_id ? ` by ${r.call_id}` : ""}: ${short(r.preview, 200)}`, tone: "dim" },
	];
}

export function askLines(ask: PendingAsk): Line[] {
	switch (ask.kind) {
		case "approval":
			return approvalLines(ask.request);
		case "release":
			return releaseLines(ask.request);
		case "question":
			return [{ text: `The agent asks: ${ask.question}`, tone: "warn" }];
		case "yesno":
			return [{ text: ask.question, tone: "warn" }];
	}
}

/** The keys that answer the ask: shown only once it is armed, so what is on screen is what works. */
export const ASK_KEYS: Readonly<Record<PendingAsk["kind"], string>> = {
	approval: "[y] allow once  [a] always allow  [d] always deny  [n/Esc] deny",
	release: "[y] release this payload once  [n/Esc] keep it",
	question: "type your answer and press Enter (Esc: no answer)",
	yesno: "[y] yes  [n/Esc] no",
};
