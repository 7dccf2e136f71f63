/**
 * The kernel's rules a store applies inside its own transactions, handed to it at open
 * (src/store/store-rules.ts says why): the audit chain's link and walk (audit-chain.ts) and what a
 * stored flow label is and how two join (flow/label.ts).
 */
import type { AuditChainRules, ChainWalker, LabelRules, StoreRules, StoredRowTrust } from "../../store/store-rules.js";
import type { LabelRow } from "../../store/store.js";
import { INTEGRITIES, join, type Label, SENSITIVITIES } from "../flow/label.js";
import { ChainVerifier, GENESIS_HASH, bodyHash, canonicalBody, canonicalJson } from "./audit-chain.js";
import type { AuditKind, AuditRecord } from "./audit-types.js";

const SOURCE_KINDS = new Set(["file", "url", "call", "user", "system", "model", "detected", "env"]);

/** Why a value is not a label (a one-line reason), or undefined when it is one. */
export function labelProblem(value: unknown): string | undefined {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return "not an object";
	const l = value as Record<string, unknown>;
	if (!(SENSITIVITIES as readonly unknown[]).includes(l.sensitivity)) return `sensitivity ${String(l.sensitivity)}`;
	if (!(INTEGRITIES as readonly unknown[]).includes(l.integrity)) return `integrity ${String(l.integrity)}`;
	if (!Array.isArray(l.sources)) return "sources is not a list";
	for (const s of l.sources as unknown[]) {
		if (s === null || typeof s !== "object") return "a source is not an object";
		const source = s as Record<string, unknown>;
		if (typeof source.kind !== "string" || !SOURCE_KINDS.has(source.kind)) return `source kind ${String(source.kind)}`;
		if (typeof source.ref !== "string") return "a source has no ref";
		if (source.sha256 !== undefined && typeof source.sha256 !== "string") return "a source sha256 is not text";
	}
	if (l.omitted !== undefined && !(Number.isInteger(l.omitted) && (l.omitted as number) >= 0)) return `omitted ${String(l.omitted)}`;
	return undefined;
}

/** A stored label row as the kernel's Label; throws for one that is not (the store checked it with labelProblem). */
export function asLabel(row: LabelRow): Label {
	const problem = labelProblem(row);
	if (problem) throw new TypeError(`not a flow label (${problem})`);
	return row as Label;
}

const LABELS: LabelRules = {
	problem: labelProblem,
	join: (a, b) => join(asLabel(a), asLabel(b)),
};

/**
 * Checks one stored row: from its line's bytes where they hash, else from the values decoded from
 * the line, as far as the row's trust allows (to name the problem, or to accept a line spelled from
 * an older table's columns or a record written before the data column was canonical).
 */
class StoredChainWalker implements ChainWalker {
	private readonly verifier = new ChainVerifier();

	push(row: readonly unknown[] | { seq: number; unreadable: string }, trust: StoredRowTrust): { seq: number; reason: string } | undefined {
		if (!Array.isArray(row)) {
			const unreadable = row as { seq: number; unreadable: string };
			return this.verifier.pushUnreadable(unreadable.seq, unreadable.unreadable);
		}
		const [seq, time, session, turn, kind, call_id, data, prev_hash, hash] = row;
		const link = { seq, prev_hash, hash } as { seq: number; prev_hash: string; hash: string };
		const typed =
			typeof seq === "number" &&
			typeof turn === "number" &&
			typeof time === "string" &&
			typeof session === "string" &&
			typeof kind === "string" &&
			typeof data === "string" &&
			(call_id === null || typeof call_id === "string");
		const body =
			typed && trust !== "never"
				? canonicalBody({ seq, time, session, turn, kind: kind as AuditKind, call_id: (call_id as string | null) ?? undefined, data })
				: undefined;
		const checked = this.verifier.pushBody(link, body);
		if (checked !== false) return checked;
		return this.verifier.pushDecoded(link, decodeRow(row), trust === "decoded");
	}

	pushHashed(line: unknown): { seq: number; reason: string } | undefined | false {
		if (typeof line !== "string") return false;
		// `<seq> <hash:64> <prev_hash:64>\n<body>`, read in place; anything else goes the slow way.
		// At most 15 digits, so the seq is a safe integer.
		let seq = 0;
		let space = 0;
		for (let c = line.charCodeAt(0); c >= 48 && c <= 57 && space < 15; c = line.charCodeAt(++space)) seq = seq * 10 + (c - 48);
		const at = space + 1;
		if (space === 0 || line.charCodeAt(space) !== 32 || line.charCodeAt(at + 64) !== 32 || line.charCodeAt(at + 129) !== 10) return false;
		// The leading seq is not hashed, the body's is: a body naming another seq than its place can
		// only hash and link if every record after it was rewritten too (no link shows that), so the
		// walk does not read it; readers refuse such a record (sqlite-audit-table.ts lineRecord).
		return this.verifier.pushLine(seq, line, at);
	}

	finish(head: { seq: number; hash: string }) {
		return this.verifier.finish(head);
	}
}

/** A raw row decoded as a record, or a one-line reason it cannot be. */
function decodeRow(row: readonly unknown[]): AuditRecord | string {
	const [seq, time, session, turn, kind, call_id, data, prev_hash, hash] = row;
	let decoded: unknown;
	try {
		decoded = JSON.parse(data as string);
	} catch {
		return "data is not valid JSON (edited?)";
	}
	const record = { seq, time, session, turn, kind, data: decoded, prev_hash, hash } as AuditRecord;
	if (call_id !== null) record.call_id = call_id as string;
	return record;
}

const CHAIN: AuditChainRules = {
	genesis: GENESIS_HASH,
	canonicalData: (data) => canonicalJson(data),
	link: (prevHash, row) => {
		const body = canonicalBody({ ...row, kind: row.kind as AuditKind });
		return { body, hash: bodyHash(prevHash, body) };
	},
	walker: () => new StoredChainWalker(),
};

/** What every store Warden opens is given. */
export const STORE_RULES: StoreRules = Object.freeze({ chain: CHAIN, labels: LABELS });
