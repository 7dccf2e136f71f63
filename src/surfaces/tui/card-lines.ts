/** A tool card and an ask as lines of text with a tone each: the screen colours them, --plain prints them. */
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";
import type { CardStatus, PendingAsk, ToolCard } from "./chat-state.js";
import { hasHiddenCharacters } from "../../kernel/display/visible-text.js";
import { cutShown, displayField, displayLine, displayText } from "./display-line.js";

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
/** An ask's command or arguments are cut only past this many characters, and then `v` shows them whole. */
export const ASK_CUT = 600;
const VIEW_ALL = ", press v to view all";

/** A field from outside, spelled by the display rule and cut with a marker saying how much is left out. */
function short(text: string, max = SHORT): string {
	return cutShown(displayField(text), max);
}

/** An ask's field: whole when `full`, else cut at ASK_CUT with the key that shows it whole. */
function askField(text: string, full: boolean): string {
	const shown = displayField(text);
	return full ? shown : cutShown(shown, ASK_CUT, VIEW_ALL);
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
		.map((raw) => ({
			text: displayLine(raw),
			tone: raw.startsWith("+++") || raw.startsWith("---") ? "dim" : raw.startsWith("+") ? "added" : raw.startsWith("-") ? "removed" : raw.startsWith("@@") ? "accent" : "plain",
		}));
}

export function cardLines(card: ToolCard, now: number): Line[] {
	const s = STATUS_MARK[card.status];
	const lines: Line[] = [{ text: `${s.mark} ${displayField(card.tool)} ${short(callSubject(card.tool, card.arguments))}  [${displayField(card.callId)}]`, tone: s.tone }];
	if (card.decision) {
		const d = card.decision;
		lines.push({ text: `  ${displayField(d.decision.toUpperCase())} (${displayField(d.layer)}${d.rule ? `: ${displayField(d.rule)}` : ""}) ${short(d.reason)}${card.confirmed ? ` · ${displayField(card.confirmed)}` : ""}`, tone: d.decision === "deny" ? "error" : d.decision === "ask" ? "warn" : "dim" });
	}
	lines.push({ text: `  ${s.word}${elapsed(card, now)}${card.error ? `: ${short(card.error)}` : ""}`, tone: s.tone });
	if (card.diff && (card.status === "completed" || card.status === "running")) lines.push(...diffLines(card.diff).map((l) => ({ text: `  ${l.text}`, tone: l.tone })));
	if (card.tail && card.tail.length > 0) {
		// A write's output repeats the diff shown above it: its first line (what was written) is enough.
		const tail = card.diff ? card.tail.slice(0, 1) : card.tail;
		const writes = card.tool === "write_file" || card.tool === "edit_file";
		if (card.hiddenLines && !card.diff) lines.push({ text: `  │ … ${card.hiddenLines} more lines above`, tone: "dim" });
		for (const t of tail) lines.push({ text: `  │ ${displayLine(t)}`, tone: writes ? (diffLines(t)[0]?.tone ?? "dim") : "dim" });
	}
	return lines;
}

/**
 * An approval shows the canonical resource the decision read (the normalized command, the real
 * path) and the exact arguments the lease is bound to, each spelled by the display rule: every
 * sub-command visible, nothing concealed, overwritten or reordered.
 */
function approvalLines(r: ConfirmationRequest, full: boolean): Line[] {
	const d = r.decision;
	const lines: Line[] = [
		{ text: `Allow ${displayField(r.tool)} on ${askField(r.resource, full)}?`, tone: "warn" },
		{ text: `  asked by ${displayField(d.layer)}${d.rule ? ` rule ${displayField(d.rule)}` : ""}: ${askField(d.reason, full)}`, tone: "plain" },
		{ text: `  arguments ${askField(JSON.stringify(r.arguments) ?? "undefined", full)}`, tone: "plain" },
	];
	if (hasHiddenCharacters(r.resource)) lines.splice(1, 0, { text: "  ! holds characters a terminal would hide or act on: each is spelled as \\x… or \\u{…}", tone: "error" });
	if (r.diff) lines.push(...diffLines(r.diff).map((l) => ({ text: `  ${l.text}`, tone: l.tone })));
	const allow = r.always?.allow;
	const deny = r.always?.deny;
	if (allow) lines.push({ text: `  a persists ${"rules" in allow ? allow.rules.map((x) => `allow ${askField(x, full)}`).join(", ") : `no rule (${displayField(allow.why)})`}`, tone: "dim" });
	if (deny) lines.push({ text: `  d persists ${"rules" in deny ? deny.rules.map((x) => `deny ${askField(x, full)}`).join(", ") : `no rule (${displayField(deny.why)})`}`, tone: "dim" });
	return lines;
}

function releaseLines(r: ReleaseRequest, full: boolean): Line[] {
	return [
		{ text: `Release data to ${displayField(r.sink)} once?`, tone: "warn" },
		{ text: `  ${displayField(r.why)}`, tone: "plain" },
		{ text: `  payload sha256 ${displayField(r.payload_sha256)}`, tone: "plain" },
		{ text: `  labels ${displayField(r.label.sensitivity)}, ${displayField(r.label.integrity)}${r.label.sources?.length ? ` from ${r.label.sources.map((s) => displayField(s.ref)).join(", ")}` : ""}`, tone: "plain" },
		{ text: `  ${displayField(r.operation)}${r.call_id ? ` by ${displayField(r.call_id)}` : ""}: ${full ? displayField(r.preview) : cutShown(displayField(r.preview), 200, VIEW_ALL)}`, tone: "dim" },
	];
}

/** The ask as lines; `full` shows every field whole (the `v` key), else long ones are cut with a marker. */
export function askLines(ask: PendingAsk, full = false): Line[] {
	switch (ask.kind) {
		case "approval":
			return approvalLines(ask.request, full);
		case "release":
			return releaseLines(ask.request, full);
		case "question":
			return [{ text: `The agent asks: ${displayText(ask.question)}`, tone: "warn" }];
		case "yesno":
			return [{ text: displayText(ask.question), tone: "warn" }];
	}
}

/** Whether the ask's lines leave something out, so `v` has more to show. */
export function askIsCut(ask: PendingAsk): boolean {
	const cut = askLines(ask, false);
	const whole = askLines(ask, true);
	return cut.some((line, i) => line.text !== whole[i]?.text);
}

/** The keys that answer the ask: shown only once it is armed, so what is on screen is what works. */
export const ASK_KEYS: Readonly<Record<PendingAsk["kind"], string>> = {
	approval: "[y] allow once  [a] always allow  [d] always deny  [n/Esc] deny",
	release: "[y] release this payload once  [n/Esc] keep it",
	question: "type your answer and press Enter (Esc: no answer)",
	yesno: "[y] yes  [n/Esc] no",
};

/** The ask's keys, with `v` where the ask has more to show than its cut lines hold. */
export function askKeys(ask: PendingAsk, full: boolean): string {
	if (ask.kind === "question" || !askIsCut(ask)) return ASK_KEYS[ask.kind];
	return `${ASK_KEYS[ask.kind]}  [v] ${full ? "shorten long fields" : "view all"}`;
}

/** The key that shows an ask whole (or cut again): never an answer, so it can be pressed at any time. */
export const VIEW_KEY = "v";
