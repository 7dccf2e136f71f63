/**
 * The context manifest (the libOS paper's context materialization): for one model call, what it
 * was sent — each message verbatim, or a compaction's summary in place of the messages it stands
 * for — and what was left out, each with why and with the flow label of what it came from.
 *
 * Its size follows what was sent, not the whole session: a summary names the messages it covers
 * as ranges of the stored record (`m4-m11,m13-m19`), and the compaction's own audit record lists
 * each of them with its label, once. Together they account for every message of the record.
 */
import { sha256Hex } from "../../kernel/evidence/sha256.js";
import { canonicalJson } from "../../kernel/evidence/audit-chain.js";
import type { Label } from "../../kernel/flow/label.js";

/**
 * `verbatim`: sent as recorded. `summary`: a compaction's summary, sent in place of what it covers.
 * `summarised`: not sent; it reached the model through a summary (listed in the compaction's
 * record). `omitted`: not sent at all (project instructions past the size cap).
 */
export type ManifestDisposition = "verbatim" | "summary" | "summarised" | "omitted";

export interface ManifestItem {
	/**
	 * `m<n>`: the n-th message of the session's stored record (Warden keeps every one); `summary <k>`:
	 * compaction k's summary; `file <path>`: a project instruction file; `instruction`: the runtime's
	 * own request text.
	 */
	ref: string;
	role?: "system" | "user" | "assistant" | "tool";
	disposition: Exclude<ManifestDisposition, "summarised">;
	why: string;
	/** Index into the manifest's `labels`. */
	label: number;
	/** Corrected token count of what was sent. */
	tokens?: number;
	/** The tool calls the item holds or answers: `warden explain <id>` reaches each. */
	call_ids?: string[];
	/** For a summary: the stored messages it stands for, as ranges (`m4-m11,m13`), earlier summaries' included. */
	covers?: string;
	/** For a summary: how many stored messages `covers` names. */
	covered?: number;
	/** For a summary: the compaction whose `compaction.completed` record lists what it replaced, each with its label. */
	compaction?: number;
}

export interface ContextManifest {
	/** `turn`: a turn's step; `compaction`: a compaction's summarising call. */
	purpose: "turn" | "compaction";
	turn: number;
	/** The step of the turn, or the compaction's number. */
	step: number;
	window: number;
	limit: number;
	/** Tokens of the whole request (tools included), as counted before it was sent. */
	tokens: number;
	count_method: "tokenizer" | "estimate";
	/** The distinct labels of the items, each once. */
	labels: Label[];
	items: ManifestItem[];
	/** Items per disposition; `summarised` counts the stored messages the summaries stand for. */
	totals: Record<ManifestDisposition, number>;
}

/** One item a compaction replaced, as its record lists it. */
export interface SummarisedItem {
	ref: string;
	role?: ManifestItem["role"];
	label: Label;
	call_ids?: string[];
}

export function manifestTotals(items: readonly ManifestItem[]): Record<ManifestDisposition, number> {
	const totals: Record<ManifestDisposition, number> = { verbatim: 0, summary: 0, summarised: 0, omitted: 0 };
	for (const item of items) {
		totals[item.disposition]++;
		totals.summarised += item.covered ?? 0;
	}
	return totals;
}

/** sha256 of the manifest's canonical JSON: the `llm.complete` record carries it, the manifest's own record is found by it. */
export function manifestDigest(manifest: ContextManifest): string {
	return sha256Hex(canonicalJson(manifest));
}

/** `[4,5,6,7,9]` → `m4-m7,m9`. */
export function refRanges(numbers: readonly number[]): string {
	const sorted = [...new Set(numbers)].sort((a, b) => a - b);
	const parts: string[] = [];
	for (let i = 0; i < sorted.length; ) {
		let j = i;
		while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
		parts.push(i === j ? `m${sorted[i]}` : `m${sorted[i]}-m${sorted[j]}`);
		i = j + 1;
	}
	return parts.join(",");
}

/** `m4-m7,m9` → `[4,5,6,7,9]`; anything else in the text is ignored. */
export function expandRefs(ranges: string): number[] {
	const out: number[] = [];
	for (const part of ranges.split(",")) {
		const m = /^m(\d+)(?:-m(\d+))?$/.exec(part.trim());
		if (!m) continue;
		const from = Number(m[1]);
		const to = m[2] === undefined ? from : Number(m[2]);
		for (let n = from; n <= to; n++) out.push(n);
	}
	return out;
}

/** The refs `m1…m<recorded>` a manifest leaves unaccounted for (neither sent verbatim nor covered by a summary sent): none, when it is whole. */
export function unaccounted(manifest: Pick<ContextManifest, "items">, recorded: number): string[] {
	const seen = new Set<number>();
	for (const item of manifest.items) {
		if (item.disposition === "verbatim" && /^m\d+$/.test(item.ref)) seen.add(Number(item.ref.slice(1)));
		if (item.disposition === "summary" && item.covers) for (const n of expandRefs(item.covers)) seen.add(n);
	}
	const missing: string[] = [];
	for (let n = 1; n <= recorded; n++) if (!seen.has(n)) missing.push(`m${n}`);
	return missing;
}

/** Collects distinct labels, each once, for a manifest's `labels` table. */
export class LabelTable {
	readonly labels: Label[] = [];
	private readonly index = new Map<string, number>();

	of(l: Label): number {
		const key = canonicalJson(l);
		let i = this.index.get(key);
		if (i === undefined) {
			i = this.labels.length;
			this.labels.push(l);
			this.index.set(key, i);
		}
		return i;
	}
}
