/**
 * The structured record of tool outcomes: after each call that ran, the runtime keeps one memory
 * record (scope project, namespace `tool-outcomes`, kind `outcome`) with the session, the tool, a
 * digest of its input, a one-line summary and metadata, so a later session can ask memory_search
 * what happened when a command was last run. The record carries the label of what the call was
 * proposed from and what it read, joined with what secret detection finds in its text: an outcome
 * of reading `.env` is as secret as `.env`. Unlike a note the model chose to keep, the summary is
 * masked (by the session's redactor, and by the values of a secret read's output) before it is cut,
 * so the runtime never writes a secret value, or the start of one, to disk on its own.
 */
import { randomUUID } from "node:crypto";
import { canonicalJson } from "../kernel/evidence/audit-chain.js";
import { sha256Hex } from "../kernel/evidence/sha256.js";
import { BOTTOM, join, type Label, label } from "../kernel/flow/label.js";
import { REDACTION_MASK } from "../kernel/flow/redaction-types.js";
import { secretValues } from "../kernel/flow/secret-values.js";
import type { SessionFlow } from "../kernel/flow/session-flow.js";
import type { MemoryBinding } from "../kernel/kernel-memory.js";
import type { MemoryRow } from "../store/memory-rows.js";

/** What the record needs of the session's flow plane: secret detection, the redactor, and what a secret label's files hold. */
export type OutcomeFlow = Pick<SessionFlow, "detect" | "options" | "learnSources">;

export const OUTCOME_NAMESPACE = "tool-outcomes";

/** Tools whose outcome is not kept: memory's own (a recall of a recall says nothing new) and the plan list. */
export const UNRECORDED_TOOLS: ReadonlySet<string> = new Set(["memory_search", "memory_write", "todo_write"]);

/** The arguments that name what a call acted on, by tool; the first one present becomes the record's subject. */
const SUBJECT_KEYS = ["path", "command", "url", "pattern", "query", "name", "task"] as const;

const SUMMARY_CHARS = 300;
const SUBJECT_CHARS = 120;

export interface ToolOutcome {
	callId: string;
	tool: string;
	args: Record<string, unknown>;
	outcome: "completed" | "failed";
	/** The result text the model was given, or the failure. */
	output: string;
	durationMs: number;
	/** What the call was proposed from and what it read. */
	label: Label;
	/** What the call read alone (its result label): when secret, the output is masked as that secret file's content would be. */
	read?: Label;
}

/** Raw characters past the cut flattened first when clipping a long text; more are taken only when runs of whitespace ate them. */
const CLIP_LOOKAHEAD = 64;

/**
 * How far past the end of what a summary keeps the text is masked before it is cut, so a secret
 * value (a long key, a PEM block) that starts inside the summary is masked whole, never cut first
 * and then missed by the redactor. Masking only this much keeps a large output's record cheap.
 */
const MASK_MARGIN = 4096;

/**
 * The text on one line, whitespace runs made single spaces, cut at `max` characters. Only as much
 * of a long text is flattened as the cut needs (a call's whole output is often many times `max`):
 * the flattened start of a text is the start of the flattened text, so once that start alone has
 * more than `max` characters the cut is the same as flattening everything would give.
 */
export function clip(text: string, max: number): string {
	for (let take = max + CLIP_LOOKAHEAD; take < text.length; take *= 2) {
		const head = flatten(text.slice(0, take));
		if (head.length > max) return `${head.slice(0, max)}…`;
	}
	const flat = flatten(text);
	return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

function flatten(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/**
 * The start of `text` that holds everything a summary of `max` characters keeps and MASK_MARGIN
 * characters more, cut at a space where one is near the end (whitespace runs flatten, so the raw
 * start a summary needs can be far longer than `max`).
 */
function maskedHead(text: string, max: number): string {
	for (let take = 2 * MASK_MARGIN; take < text.length; take *= 2) {
		if (flatten(text.slice(0, take - MASK_MARGIN)).length <= max) continue;
		const space = text.slice(take - MASK_MARGIN, take).search(/\s\S*$/);
		return text.slice(0, space >= 0 ? take - MASK_MARGIN + space : take);
	}
	return text;
}

/** `text` masked by `mask`, then clipped to `max` characters. */
function summarize(text: string, max: number, mask: (text: string) => string): string {
	const head = maskedHead(text, max);
	const summary = clip(mask(head), max);
	return head.length < text.length && !summary.endsWith("…") ? `${summary}…` : summary;
}

/** Every occurrence of the values masked, longest first, so a value holding another is masked whole. */
function maskValues(text: string, values: readonly string[]): string {
	let out = text;
	for (const value of [...values].sort((a, b) => b.length - a.length)) if (out.includes(value)) out = out.split(value).join(REDACTION_MASK);
	return out;
}

const unmasked = (text: string) => text;

export function outcomeSubject(args: Record<string, unknown>, mask: (text: string) => string = unmasked): string {
	for (const key of SUBJECT_KEYS) {
		const value = args[key];
		if (typeof value === "string" && value !== "") return summarize(value, SUBJECT_CHARS, mask);
	}
	return "";
}

export function inputDigest(args: Record<string, unknown>): string {
	return sha256Hex(canonicalJson(args));
}

/**
 * The outcome record, not yet stored. Its text is masked by the session's redactor and, when what
 * the call read is secret, by the values that output holds as a secret file's would be: a label
 * that says secret keeps its values out of the record even where the redactor never learned them.
 */
export function outcomeRow(memory: MemoryBinding, flow: OutcomeFlow, call: ToolOutcome, at: Date): MemoryRow {
	const { redactor } = flow.options;
	const read = call.read;
	const secretRead = read?.sensitivity === "secret";
	const redact = (text: string) => redactor.redactText(text);
	// The output, not the arguments, is what was read: only it is masked as the secret's content.
	const maskOutput = (text: string) => redact(secretRead ? maskValues(text, secretValues(read.sources.find((s) => s.kind === "file")?.ref ?? "", text)) : text);
	const line = (subject: string) => `${call.tool} ${call.outcome}${subject ? `: ${subject}` : ""}`;
	const rawTitle = line(outcomeSubject(call.args));
	const rawContent = summarize(call.output, SUMMARY_CHARS, unmasked);
	// The runtime's own record keeps no secret value: the text is masked, the label still says secret.
	const title = line(outcomeSubject(call.args, redact));
	const content = summarize(call.output, SUMMARY_CHARS, maskOutput);
	const masked = title !== rawTitle || content !== rawContent ? label("secret", "trusted", { kind: "detected", ref: `outcome of ${call.callId}` }) : BOTTOM;
	const carries = join(call.label, flow.detect(`${rawTitle}\n${rawContent}`, `outcome of ${call.callId}`), masked);
	const path = typeof call.args.path === "string" ? [call.args.path] : [];
	return {
		id: randomUUID(),
		scope: "project",
		scope_key: memory.project,
		namespace: OUTCOME_NAMESPACE,
		kind: "outcome",
		title,
		tags: [call.tool, call.outcome],
		content,
		path_hints: path,
		metadata: { session: memory.session, call_id: call.callId, tool: call.tool, input_digest: inputDigest(call.args), outcome: call.outcome, duration_ms: call.durationMs },
		created_at: at.toISOString(),
		updated_at: at.toISOString(),
		stale: false,
		label: carries,
		written_by_session: memory.session,
		written_by_call: call.callId,
	};
}

/**
 * With `deferTo` (a deferring recorder's), the record commits with the turn's next barrier, which
 * reports a refused write; without, the write is awaited. Either way nothing leaves the process
 * before the record is durable.
 */
export async function recordToolOutcome(
	memory: MemoryBinding | undefined,
	flow: OutcomeFlow,
	call: ToolOutcome,
	deferTo?: (written: Promise<unknown>) => void,
): Promise<void> {
	if (!memory || UNRECORDED_TOOLS.has(call.tool)) return;
	if (call.read?.sensitivity === "secret") await flow.learnSources(call.read);
	const row = outcomeRow(memory, flow, call, (memory.now ?? (() => new Date()))());
	if (deferTo) deferTo(memory.rows.put(row, undefined, { deferred: true }));
	else await memory.rows.put(row);
}
