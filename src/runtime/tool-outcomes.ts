/**
 * The structured record of tool outcomes: after each call that ran, the runtime keeps one memory
 * record (scope project, namespace `tool-outcomes`, kind `outcome`) with the session, the tool, a
 * digest of its input, a one-line summary and metadata, so a later session can ask memory_search
 * what happened when a command was last run. The record carries the label of what the call was
 * proposed from and what it read, joined with what secret detection finds in its text: an outcome
 * of reading `.env` is as secret as `.env`. Unlike a note the model chose to keep, the summary is
 * masked by the session's redactor, so the runtime never writes a secret value to disk on its own.
 */
import { randomUUID } from "node:crypto";
import { canonicalJson } from "../kernel/evidence/audit-chain.js";
import { sha256Hex } from "../kernel/evidence/sha256.js";
import { join, type Label } from "../kernel/flow/label.js";
import type { SessionFlow } from "../kernel/flow/session-flow.js";
import type { MemoryBinding } from "../kernel/kernel-memory.js";
import type { MemoryRow } from "../store/memory-rows.js";

/** What the record needs of the session's flow plane: secret detection and the redactor. */
export type OutcomeFlow = Pick<SessionFlow, "detect" | "options">;

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
}

/** Raw characters past the cut flattened first when clipping a long text; more are taken only when runs of whitespace ate them. */
const CLIP_LOOKAHEAD = 64;

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

export function outcomeSubject(args: Record<string, unknown>): string {
	for (const key of SUBJECT_KEYS) {
		const value = args[key];
		if (typeof value === "string" && value !== "") return clip(value, SUBJECT_CHARS);
	}
	return "";
}

export function inputDigest(args: Record<string, unknown>): string {
	return sha256Hex(canonicalJson(args));
}

/** The outcome record, not yet stored. */
export function outcomeRow(memory: MemoryBinding, flow: OutcomeFlow, call: ToolOutcome, at: Date): MemoryRow {
	const { redactor } = flow.options;
	const subject = outcomeSubject(call.args);
	const rawTitle = `${call.tool} ${call.outcome}${subject ? `: ${subject}` : ""}`;
	const rawContent = clip(call.output, SUMMARY_CHARS);
	const carries = join(call.label, flow.detect(`${rawTitle}\n${rawContent}`, `outcome of ${call.callId}`));
	// The runtime's own record keeps no secret value: the text is masked, the label still says secret.
	const title = redactor.redactText(rawTitle);
	const content = redactor.redactText(rawContent);
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
	const row = outcomeRow(memory, flow, call, (memory.now ?? (() => new Date()))());
	if (deferTo) deferTo(memory.rows.put(row, undefined, { deferred: true }));
	else await memory.rows.put(row);
}
