/**
 * The replay file, schema version 1: JSON lines, a header first and an `end` line last, each line
 * chained to the one before by the sha256 of its exact bytes. schemas/replay.v1.json describes one
 * line; change both together. A later version adds its own types and a case in replay-reader.ts,
 * and version 1 files stay readable.
 */
import type { ModelResponse } from "../../models/provider.js";

export const REPLAY_KIND = "warden.replay";
export const REPLAY_SCHEMA = 1;
/** The `prev` of the header: nothing comes before it. */
export const GENESIS = "0".repeat(64);

/** A replay file that cannot be used: tampered, truncated, of an unknown version, malformed. One line. */
export class ReplayError extends Error {
	override name = "ReplayError";
}

export interface ReplayRule {
	rule: string;
	outcome: "allow" | "ask" | "deny";
	source: string;
}

/** What the session ran under, as its `session.started` audit record says. */
export interface ReplaySessionOptions {
	rules: ReplayRule[];
	run_deny: string[];
	/** The host's grants; absent when the session held its mode's preset. */
	grants?: Record<string, unknown>[];
	/** The task ceiling as a spec (the recorded manifest without its version). */
	ceiling?: Record<string, unknown>;
	budget?: { host?: Record<string, number>; session?: Record<string, number>; turn?: Record<string, number> };
	/** The host's sink rules (the runtime's defaults are not repeated). */
	flow_sinks?: Record<string, unknown>[];
	secret_files?: string[];
	/** Known only when a turn stopped at its step limit. */
	max_steps?: number;
	/** The system prompt as stored (redacted). */
	system_prompt?: string;
}

export interface ReplayHeader {
	replay_schema: 1;
	kind: typeof REPLAY_KIND;
	session: string;
	exported_at: string;
	/** The workspace's path as recorded. */
	workspace: string;
	mode: string;
	/** The model spec the session ran with. */
	model: string;
	/** Everything in the file is evidence the store already redacted; the workspace was never read. */
	redacted: true;
	options: ReplaySessionOptions;
	/** The tools the exporting Warden offers, by name. */
	tools: string[];
}

export interface InputItem {
	type: "input";
	turn: number;
	text: string;
	/** How the turn ended (turn.completed); absent when it never did (a crash). */
	status?: string;
}

export interface ModelItem {
	type: "model";
	turn: number;
	step: number;
	response: ModelResponse;
}

export interface DecisionItem {
	type: "decision";
	turn: number;
	call: string;
	tool: string;
	/** `invalid`: the proposal never reached a decision (unknown tool, bad arguments). */
	decision: "allow" | "ask" | "deny" | "invalid";
	layer?: string;
	rule?: string;
	/** The host's answer to an ask. */
	approval?: { approved: boolean; response?: string };
}

export interface EffectItem {
	type: "effect";
	turn: number;
	call: string;
	effect: string;
	resource: string;
	state?: string;
	sha256_before?: string | null;
	sha256_after?: string;
	/** fs.delete: the content removed. */
	sha256?: string;
	exit_code?: number | null;
	status?: number;
}

/**
 * A file the session wrote or deleted, as it was before the session first touched it (`sha256`
 * null: it did not exist) and as the session left it (`end_sha256` null: the session removed it).
 */
export interface FileItem {
	type: "file";
	path: string;
	sha256: string | null;
	end_sha256: string | null;
	content_b64?: string;
	/** Present, with `content: null`, when the store kept no before-image. */
	content?: null;
	reason?: string;
}

export type ReplayItem = InputItem | ModelItem | DecisionItem | EffectItem | FileItem;

/** A replay file as read: its header and its items, each with the 1-based line it came from. */
export interface Replay {
	header: ReplayHeader;
	items: { line: number; item: ReplayItem }[];
}
