/**
 * Labels: what the runtime knows about a payload's sensitivity, integrity and origin. A join keeps
 * the highest sensitivity and the lowest integrity, and the sources of both sides: nothing is ever
 * dropped because the model "seems not to have used" part of its context. Only the list of source
 * references is bounded (the count of those left out is kept), never the levels.
 */

export const SENSITIVITIES = ["public", "internal", "secret"] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

export const INTEGRITIES = ["trusted", "untrusted"] as const;
export type Integrity = (typeof INTEGRITIES)[number];

/** Where a payload came from: a file at a content hash, a URL, a tool call, the host's input … */
export interface SourceRef {
	kind: "file" | "url" | "call" | "user" | "system" | "model" | "detected" | "env";
	/** Workspace-relative path, URL, call id, pattern name …; never the data itself. */
	ref: string;
	/** sha256 hex of the content, for files. */
	sha256?: string;
}

export interface Label {
	sensitivity: Sensitivity;
	integrity: Integrity;
	/** Sources that raised the sensitivity or lowered the integrity first; at most MAX_SOURCES. */
	sources: SourceRef[];
	/**
	 * About how many source references were left out of `sources` (the levels still count them).
	 * The references themselves are gone, so this is an estimate: a join keeps the larger count of
	 * its inputs and adds one per reference it leaves out (join says why).
	 */
	omitted?: number;
}

export const MAX_SOURCES = 16;

/** The bottom of the lattice: public, trusted, from nowhere. Joining it changes nothing. */
export const BOTTOM: Label = Object.freeze({ sensitivity: "public", integrity: "trusted", sources: [] }) as Label;

export function sensitivityRank(s: Sensitivity): number {
	return SENSITIVITIES.indexOf(s);
}

/** a ≤ b in sensitivity. */
export function atMost(a: Sensitivity, b: Sensitivity): boolean {
	return sensitivityRank(a) <= sensitivityRank(b);
}

export function label(sensitivity: Sensitivity, integrity: Integrity, ...sources: SourceRef[]): Label {
	return { sensitivity, integrity, sources: sources.slice(0, MAX_SOURCES), ...(sources.length > MAX_SOURCES ? { omitted: sources.length - MAX_SOURCES } : {}) };
}

function sameSource(a: SourceRef, b: SourceRef): boolean {
	return a.kind === b.kind && a.ref === b.ref && a.sha256 === b.sha256;
}

/**
 * The least upper bound: highest sensitivity, lowest integrity, sources of both (de-duplicated).
 * Left-out counts are not added up: a session's context label is joined again and again with
 * labels made from it, and the sum would count the same references each time, doubling per join
 * until it is no number at all. The largest count, plus the references this join leaves out,
 * grows by one per reference left out instead.
 */
export function join(...labels: readonly Label[]): Label {
	let sensitivity: Sensitivity = "public";
	let integrity: Integrity = "trusted";
	const sources: SourceRef[] = [];
	let inherited = 0;
	let overflow = 0;
	for (const l of labels) {
		if (sensitivityRank(l.sensitivity) > sensitivityRank(sensitivity)) sensitivity = l.sensitivity;
		if (l.integrity === "untrusted") integrity = "untrusted";
		inherited = Math.max(inherited, l.omitted ?? 0);
		for (const s of l.sources) {
			if (sources.some((t) => sameSource(s, t))) continue;
			if (sources.length < MAX_SOURCES) sources.push(s);
			else overflow++;
		}
	}
	const omitted = inherited + overflow;
	return omitted > 0 ? { sensitivity, integrity, sources, omitted } : { sensitivity, integrity, sources };
}

const HOST_KINDS: ReadonlySet<SourceRef["kind"]> = new Set(["user", "system", "model"]);

/** ` (from file .env, url https://x/ and 2 more)`, or "" for a label from nowhere. */
export function describeSources(l: Label): string {
	// The world's sources (files, URLs, detections) say more about the data than the host's own input does.
	const ranked = [...l.sources.filter((s) => !HOST_KINDS.has(s.kind)), ...l.sources.filter((s) => HOST_KINDS.has(s.kind))];
	const shown = ranked.slice(0, 3).map((s) => `${s.kind} ${s.ref}`);
	const more = l.sources.length - shown.length + (l.omitted ?? 0);
	return shown.length === 0 ? "" : ` (from ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""})`;
}

/** One line for messages: `secret, untrusted (from file .env, url https://x/)`. */
export function describeLabel(l: Label): string {
	return `${l.sensitivity}, ${l.integrity}${describeSources(l)}`;
}
