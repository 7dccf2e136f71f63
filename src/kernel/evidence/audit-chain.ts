/**
 * The audit hash chain: each record's hash covers the previous record's hash and its own
 * canonical contents, so an edited, deleted or reordered record breaks the chain at that point.
 */
import { createHash } from "node:crypto";
import type { AuditRecord, AuditVerifyResult } from "./audit-types.js";

/** The fields a record's hash covers. */
export type HashedAuditFields = Pick<AuditRecord, "seq" | "time" | "session" | "turn" | "kind" | "call_id" | "data">;

/** The last record as the store remembers it, to catch records removed from the end of the chain. */
export interface ChainHead {
	seq: number;
	hash: string;
}

export interface ChainProblem {
	seq: number;
	reason: string;
}

/** The prev_hash of the first record. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * JSON with object keys sorted and no whitespace, so the same value always hashes the same
 * whichever order its keys were built in. Follows JSON.stringify for everything else:
 * undefined, functions and symbols are dropped from objects and become null in arrays,
 * non-finite numbers become null, toJSON is honoured.
 */
export function canonicalJson(value: unknown): string {
	const out = encode(value, new Set());
	if (out === undefined) {
		throw new TypeError("canonicalJson: the value has no JSON representation");
	}
	return out;
}

function encode(value: unknown, ancestors: Set<object>): string | undefined {
	if (value === null) return "null";
	switch (typeof value) {
		case "string":
			return JSON.stringify(value);
		case "number":
			return Number.isFinite(value) ? JSON.stringify(value) : "null";
		case "boolean":
			return value ? "true" : "false";
		case "bigint":
			throw new TypeError("canonicalJson: a bigint has no JSON representation");
		case "undefined":
		case "function":
		case "symbol":
			return undefined;
	}
	const obj = value as object & { toJSON?: () => unknown };
	if (typeof obj.toJSON === "function") return encode(obj.toJSON(), ancestors);
	if (ancestors.has(obj)) throw new TypeError("canonicalJson: the value contains a cycle");
	ancestors.add(obj);
	try {
		if (Array.isArray(obj)) {
			return `[${obj.map((item) => encode(item, ancestors) ?? "null").join(",")}]`;
		}
		const record = obj as Record<string, unknown>;
		const parts: string[] = [];
		for (const key of Object.keys(record).sort()) {
			const encoded = encode(record[key], ancestors);
			if (encoded !== undefined) parts.push(`${JSON.stringify(key)}:${encoded}`);
		}
		return `{${parts.join(",")}}`;
	} finally {
		ancestors.delete(obj);
	}
}

/** sha256 hex over prevHash, a newline, and the canonical JSON of the hashed fields. */
export function auditHash(prevHash: string, fields: HashedAuditFields): string {
	// Pick the fields explicitly so extra properties on a full record (hash, prev_hash) never leak in.
	const body = canonicalJson({
		seq: fields.seq,
		time: fields.time,
		session: fields.session,
		turn: fields.turn,
		kind: fields.kind,
		call_id: fields.call_id,
		data: fields.data,
	});
	return createHash("sha256").update(`${prevHash}\n${body}`).digest("hex");
}

/**
 * Checks records one at a time, in the order they are read, so a store can verify a long
 * chain without loading it whole. Stops at the first problem.
 */
export class ChainVerifier {
	private expectedSeq = 1;
	private prevHash = GENESIS_HASH;
	private problem: ChainProblem | undefined;
	private passed = 0;

	/** Records that passed so far. */
	get checked(): number {
		return this.passed;
	}

	get firstProblem(): ChainProblem | undefined {
		return this.problem;
	}

	/** Checks the next record; returns the problem if it (or an earlier one) is bad. */
	push(record: AuditRecord): ChainProblem | undefined {
		if (this.problem) return this.problem;
		const expected = this.expectedSeq;
		if (record.seq !== expected) {
			const why =
				typeof record.seq === "number" && record.seq > expected
					? "a record was deleted?"
					: "records out of order or duplicated?";
			return this.fail(expected, `expected seq ${expected}, found ${String(record.seq)} (${why})`);
		}
		if (record.prev_hash !== this.prevHash) {
			const before = expected === 1 ? "the genesis hash" : `record ${expected - 1}`;
			return this.fail(expected, `prev_hash does not match ${before} (reordered or deleted?)`);
		}
		if (auditHash(record.prev_hash, record) !== record.hash) {
			return this.fail(expected, "hash does not match its contents (edited?)");
		}
		this.prevHash = record.hash;
		this.expectedSeq = expected + 1;
		this.passed += 1;
		return undefined;
	}

	/** Records a problem found outside the chain itself (say, a record that cannot be decoded). */
	fail(seq: number, reason: string): ChainProblem {
		this.problem ??= { seq, reason: `record ${seq}: ${reason}` };
		return this.problem;
	}

	/**
	 * Ends the walk. With the store's remembered head, also catches records removed from the
	 * end, which the links alone cannot show.
	 */
	finish(head?: ChainHead): AuditVerifyResult {
		if (!this.problem && head) this.checkHead(head);
		if (this.problem) return { ok: false, checked: this.passed, firstBad: this.problem };
		return { ok: true, checked: this.passed };
	}

	private checkHead(head: ChainHead): void {
		const lastSeq = this.expectedSeq - 1;
		if (head.seq > lastSeq) {
			this.fail(
				lastSeq + 1,
				`missing: the chain ends at seq ${lastSeq} but the store's head is seq ${head.seq} (records were removed from the end?)`,
			);
		} else if (head.seq < lastSeq) {
			this.fail(head.seq + 1, `not in the store's head, which ends at seq ${head.seq} (appended outside the store?)`);
		} else if (lastSeq > 0 && head.hash !== this.prevHash) {
			this.fail(lastSeq, "hash does not match the store's head (the last record was replaced?)");
		}
	}
}

/** Walks records in the order given and names the first bad one. */
export function verifyChain(records: Iterable<AuditRecord>, head?: ChainHead): AuditVerifyResult {
	const verifier = new ChainVerifier();
	for (const record of records) {
		if (verifier.push(record)) break;
	}
	return verifier.finish(head);
}
