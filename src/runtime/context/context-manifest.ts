/**
 * The context manifest (the libOS paper's context materialization): for one model call, every
 * message of the session's record and where it went — sent verbatim, replaced by a summary, or
 * left out — with why and with the flow label of what it came from.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../kernel/evidence/audit-chain.js";
import type { Label } from "../../kernel/flow/label.js";

/**
 * `verbatim`: sent as recorded. `summary`: a compaction's summary, sent in place of what it covers.
 * `summarised`: not sent; its content reached the model through the summary `into`. `omitted`: not
 * sent at all (project instructions past the size cap).
 */
export type ManifestDisposition = "verbatim" | "summary" | "summarised" | "omitted";

export interface ManifestItem {
	/**
	 * `m<n>`: the n-th message of the session's stored record (`warden` keeps every one);
	 * `summary <k>`: compaction k's summary (its audit record holds the text); `file <path>`: a
	 * project instruction file; `instruction`: the runtime's own request text.
	 */
	ref: string;
	role?: "system" | "user" | "assistant" | "tool";
	disposition: ManifestDisposition;
	why: string;
	label: Label;
	/** Corrected token count of what was sent (verbatim and summary items). */
	tokens?: number;
	/** The tool calls the item holds or answers: `warden explain <id>` reaches each. */
	call_ids?: string[];
	/** For summarised items: the summary that carries them. */
	into?: string;
	/** For a summary: the refs it covers. */
	covers?: string[];
}

export interface ContextManifest {
	/** `turn` or `compaction`: a turn's step, or the summarising call. */
	purpose: "turn" | "compaction";
	turn: number;
	step: number;
	window: number;
	limit: number;
	/** Tokens of the whole request (tools included), as counted before it was sent. */
	tokens: number;
	count_method: "tokenizer" | "estimate";
	items: ManifestItem[];
	totals: Record<ManifestDisposition, number>;
}

export function manifestTotals(items: readonly ManifestItem[]): Record<ManifestDisposition, number> {
	const totals: Record<ManifestDisposition, number> = { verbatim: 0, summary: 0, summarised: 0, omitted: 0 };
	for (const item of items) totals[item.disposition]++;
	return totals;
}

/** sha256 of the manifest's canonical JSON: the `llm.complete` record carries it, the manifest's own record is found by it. */
export function manifestDigest(manifest: ContextManifest): string {
	return createHash("sha256").update(canonicalJson(manifest)).digest("hex");
}

/** The refs `m1…m<n>` a manifest leaves unaccounted for (neither sent verbatim nor summarised): none, when it is whole. */
export function unaccounted(manifest: ContextManifest, recorded: number): string[] {
	const seen = new Set(manifest.items.filter((i) => i.disposition === "verbatim" || i.disposition === "summarised").map((i) => i.ref));
	const missing: string[] = [];
	for (let n = 1; n <= recorded; n++) if (!seen.has(`m${n}`)) missing.push(`m${n}`);
	return missing;
}
