/**
 * A turn's manifest recorded as what changed since the session's previous one: the items it kept
 * (as ranges of the previous manifest's items), the items new to it, and the totals. Each step of a
 * long session then records what its step added, not the whole context again, and the whole
 * manifest is rebuilt from the chain of records (`warden explain model_<t>_<s>` shows it as it was).
 *
 * A record's digest is the sha256 of its own canonical body, which names the digest of the record it
 * builds on: checking each link checks the whole manifest. Items carry their raw token count and the
 * record the correction factor, so a new factor changes no item. The first record of a keeper, and
 * every `MAX_CHAIN`-th after it, lists every item: explain never walks far.
 */
import { sha256Hex } from "../../kernel/evidence/sha256.js";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import { canonicalJson } from "../../kernel/evidence/audit-chain.js";
import type { Label } from "../../kernel/flow/label.js";
import { type ContextManifest, LabelTable, type ManifestDisposition, type ManifestItem, manifestDigest } from "./context-manifest.js";

/** A chain is restarted with a whole manifest after this many links. */
export const MAX_CHAIN = 64;

/** One item as the keeper holds it: its label itself, and tokens before the correction. */
export type StepItem = Omit<ManifestItem, "label" | "tokens"> & { label: Label; raw?: number };

/** An item as a record stores it: `label` indexes the record's own `labels`. */
type StoredItem = Omit<ManifestItem, "tokens"> & { raw?: number };

/** `[from, to]`: the base manifest's items from..to-1, in order; an object: an item new to this manifest. */
type Part = [number, number] | StoredItem;

/** The data of a `context.manifest` record in delta form (`digest` beside it). */
export interface ManifestStep extends StepHeader {
	form: "delta";
	/** The digest of the record this one builds on; none for a whole manifest. */
	base?: string;
	purpose: "turn";
	totals: ContextManifest["totals"];
	/** The labels of the new items only. */
	labels: Label[];
	parts: Part[];
}

export interface StepHeader {
	turn: number;
	step: number;
	window: number;
	limit: number;
	tokens: number;
	count_method: ContextManifest["count_method"];
	/** The correction factor in force: an item's tokens are its raw count times it, rounded up. */
	factor: number;
}

/** What the keeper remembers of its latest step manifest. */
interface ChainState {
	digest: string;
	index: Map<StepItem, number>;
	length: number;
}

export function corrected(raw: number, factor: number): number {
	return Math.ceil(raw * factor);
}

/** Builds each step's record against the one before; one per session keeper. */
export class ManifestChain {
	private last: ChainState | undefined;

	/**
	 * The record for `items` (the keeper's own objects: an item unchanged since the last step is the
	 * same object) and its digest.
	 */
	record(items: readonly StepItem[], header: StepHeader): { data: ManifestStep; digest: string } {
		const base = this.last !== undefined && this.last.length < MAX_CHAIN ? this.last : undefined;
		const labels = new LabelTable();
		const parts: Part[] = [];
		const totals: Record<ManifestDisposition, number> = { verbatim: 0, summary: 0, summarised: 0, omitted: 0 };
		const index = new Map<StepItem, number>();
		let run: [number, number] | undefined;
		for (const [i, item] of items.entries()) {
			index.set(item, i);
			totals[item.disposition]++;
			totals.summarised += item.covered ?? 0;
			const at = base?.index.get(item);
			if (at !== undefined) {
				if (run && run[1] === at) run[1] = at + 1;
				else {
					run = [at, at + 1];
					parts.push(run);
				}
				continue;
			}
			run = undefined;
			parts.push({ ...item, label: labels.of(item.label) });
		}
		const data: ManifestStep = { form: "delta", ...(base ? { base: base.digest } : {}), purpose: "turn", ...header, totals, labels: labels.labels, parts };
		const digest = stepDigest(data);
		this.last = { digest, index, length: base ? base.length + 1 : 1 };
		return { data, digest };
	}
}

function stepDigest(data: ManifestStep): string {
	return sha256Hex(canonicalJson(data));
}

export function isManifestStep(data: Record<string, unknown>): boolean {
	return data.form === "delta";
}

type Rebuilt = { items: StepItem[]; ok: boolean };

/** The whole manifest of a record, with whether its digest and every link before it check. */
export type ReadManifest = ContextManifest & { digest: string; digest_ok: boolean };

/**
 * Reads context.manifest records in either form: a whole manifest as it was recorded, a delta one
 * rebuilt from its chain (found among `audit`'s records of the same session, before it). Undefined
 * when a link is missing.
 */
export class ManifestReader {
	private readonly rebuilt = new Map<number, Rebuilt | undefined>();
	private readonly byDigest = new Map<string, AuditRecord[]>();

	constructor(audit: readonly AuditRecord[]) {
		for (const r of audit) {
			if (r.kind !== "context.manifest" || typeof r.data.digest !== "string") continue;
			const list = this.byDigest.get(r.data.digest) ?? [];
			list.push(r);
			this.byDigest.set(r.data.digest, list);
		}
	}

	read(record: AuditRecord): ReadManifest | undefined {
		const { digest, ...body } = record.data as Record<string, unknown> & { digest: string };
		if (!isManifestStep(record.data)) {
			const whole = body as unknown as ContextManifest;
			return { ...whole, digest, digest_ok: manifestDigest(whole) === digest };
		}
		const built = this.items(record);
		if (!built) return undefined;
		const step = body as unknown as ManifestStep;
		const table = new LabelTable();
		const items = built.items.map((item) => toManifestItem(item, table.of(item.label), step.factor));
		const manifest: ContextManifest = {
			purpose: step.purpose,
			turn: step.turn,
			step: step.step,
			window: step.window,
			limit: step.limit,
			tokens: step.tokens,
			count_method: step.count_method,
			labels: table.labels,
			items,
			totals: step.totals,
		};
		return { ...manifest, digest, digest_ok: built.ok };
	}

	/** The items of a delta record, the chain before it rebuilt first (iteratively: a chain may be long). */
	private items(record: AuditRecord): Rebuilt | undefined {
		const chain: AuditRecord[] = [];
		let at: AuditRecord | undefined = record;
		while (at && !this.rebuilt.has(at.seq)) {
			chain.push(at);
			const base: unknown = at.data.base;
			if (typeof base !== "string") break;
			const seq: number = at.seq;
			const session: string = at.session;
			at = this.byDigest.get(base)?.filter((r) => r.session === session && r.seq < seq && isManifestStep(r.data)).at(-1);
			if (!at) {
				for (const r of chain) this.rebuilt.set(r.seq, undefined);
				return undefined;
			}
		}
		let prior = at ? this.rebuilt.get(at.seq) : undefined;
		for (let i = chain.length - 1; i >= 0; i--) {
			const r = chain[i]!;
			const hasBase = typeof r.data.base === "string";
			const built = hasBase && !prior ? undefined : apply(r, hasBase ? prior : undefined);
			this.rebuilt.set(r.seq, built);
			prior = built;
		}
		return this.rebuilt.get(record.seq);
	}
}

function apply(record: AuditRecord, base: Rebuilt | undefined): Rebuilt | undefined {
	const { digest, ...body } = record.data as Record<string, unknown> & { digest: string };
	const step = body as unknown as ManifestStep;
	if (!Array.isArray(step.parts) || !Array.isArray(step.labels)) return undefined;
	const items: StepItem[] = [];
	for (const part of step.parts) {
		if (Array.isArray(part)) {
			const [from, to] = part;
			if (!base || !(from >= 0 && to <= base.items.length && from < to)) return undefined;
			for (let i = from; i < to; i++) items.push(base.items[i]!);
		} else {
			const l = step.labels[part.label];
			if (!l) return undefined;
			items.push({ ...part, label: l });
		}
	}
	return { items, ok: (base?.ok ?? true) && stepDigest(step) === digest };
}

/** A kept item as a whole manifest lists it: the label by index, raw tokens corrected, keys in the order the keeper writes them. */
function toManifestItem(item: StepItem, labelIndex: number, factor: number): ManifestItem {
	const out: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(item)) {
		if (k === "label") out.label = labelIndex;
		else if (k === "raw") out.tokens = corrected(v as number, factor);
		else out[k] = v;
	}
	return out as unknown as ManifestItem;
}
