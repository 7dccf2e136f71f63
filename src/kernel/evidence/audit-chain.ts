/**
 * The audit hash chain: each record's hash covers the previous record's hash and its own
 * canonical contents, so an edited, deleted or reordered record breaks the chain at that point.
 */
import type { AuditRecord, AuditVerifyResult } from "./audit-types.js";
import { sha256Hex } from "./sha256.js";

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
	let out: string | undefined;
	try {
		// The common case: a copy with every object's keys in sorted order, written by JSON.stringify.
		out = JSON.stringify(sortedCopy(value, []));
	} catch (err) {
		if (err !== SPELL_IT_OUT) throw err;
		out = encode(value, []);
	}
	if (out === undefined) {
		throw new TypeError("canonicalJson: the value has no JSON representation");
	}
	return out;
}

/** Up to this many keys are sorted in place by insertion; Array.prototype.sort allocates a work array on every call. */
const INSERTION_SORT_MAX = 24;

/** Sorts in code-unit order, as Array.prototype.sort does strings. */
function sortKeys(keys: string[]): void {
	if (keys.length > INSERTION_SORT_MAX) {
		keys.sort();
		return;
	}
	for (let i = 1; i < keys.length; i++) {
		const key = keys[i]!;
		let j = i - 1;
		while (j >= 0 && keys[j]! > key) {
			keys[j + 1] = keys[j]!;
			j--;
		}
		keys[j + 1] = key;
	}
}

/** An own property of a plain object: `__proto__` would set the prototype instead, so encode writes that one. */
function put(copy: Record<string, unknown>, key: string, value: unknown): void {
	if (key === "__proto__") throw SPELL_IT_OUT;
	copy[key] = value;
}

/** Thrown by sortedCopy for a value a copy cannot give the canonical order to: encode spells it out. */
const SPELL_IT_OUT = Symbol("spell it out");

/**
 * The value with toJSON applied and every object's keys inserted in sorted order, so JSON.stringify
 * writes the canonical bytes; what is already in order is returned as it is, not copied. An object
 * whose keys are not in order and include one that starts with a digit (an integer-like key, which
 * an object always lists first in numeric order, whatever order it was inserted in) cannot be copied
 * into string order, nor can a boxed primitive (JSON.stringify would unwrap it; encode lists its
 * keys): both throw SPELL_IT_OUT and the whole value is encoded by hand.
 */
function sortedCopy(value: unknown, ancestors: object[]): unknown {
	if (typeof value !== "object" || value === null) {
		if (typeof value === "bigint") throw new TypeError("canonicalJson: a bigint has no JSON representation");
		return value;
	}
	const obj = value as object & { toJSON?: () => unknown };
	if (typeof obj.toJSON === "function") return sortedCopy(obj.toJSON(), ancestors);
	if (obj instanceof String || obj instanceof Number || obj instanceof Boolean) throw SPELL_IT_OUT;
	if (ancestors.includes(obj)) throw new TypeError("canonicalJson: the value contains a cycle");
	ancestors.push(obj);
	try {
		if (Array.isArray(obj)) {
			let copy: unknown[] | undefined;
			for (let i = 0; i < obj.length; i++) {
				const item: unknown = obj[i];
				const sorted = sortedCopy(item, ancestors);
				if (sorted !== item) {
					copy ??= obj.slice();
					copy[i] = sorted;
				}
			}
			return copy ?? obj;
		}
		const record = obj as Record<string, unknown>;
		const keys = Object.keys(record);
		let inOrder = true;
		for (let i = 1; i < keys.length; i++) {
			if (keys[i - 1]! > keys[i]!) {
				inOrder = false;
				break;
			}
		}
		if (!inOrder) {
			sortKeys(keys);
			for (const key of keys) {
				const first = key.charCodeAt(0);
				if (first >= 48 && first <= 57) throw SPELL_IT_OUT;
			}
		}
		let copy: Record<string, unknown> | undefined;
		for (let i = 0; i < keys.length; i++) {
			const key = keys[i]!;
			const item = record[key];
			const sorted = sortedCopy(item, ancestors);
			if (copy === undefined && (sorted !== item || !inOrder)) {
				copy = {};
				for (let j = 0; j < i; j++) put(copy, keys[j]!, record[keys[j]!]);
			}
			if (copy !== undefined) put(copy, key, sorted);
		}
		return copy ?? obj;
	} finally {
		ancestors.pop();
	}
}

/**
 * `ancestors` is the path from the root to `value`: a stack, since a value nests only a few levels
 * deep and a scan of them costs less than a Set's add and delete per object. Every digest and every
 * audit record is encoded here, so the output is built by appending to one string per container
 * rather than mapping into arrays and joining them.
 */
function encode(value: unknown, ancestors: object[]): string | undefined {
	switch (typeof value) {
		case "string":
			return JSON.stringify(value);
		case "number":
			// A finite number's JSON is its String (ECMA-262 SerializeJSONProperty).
			return Number.isFinite(value) ? String(value) : "null";
		case "boolean":
			return value ? "true" : "false";
		case "bigint":
			throw new TypeError("canonicalJson: a bigint has no JSON representation");
		case "undefined":
		case "function":
		case "symbol":
			return undefined;
	}
	if (value === null) return "null";
	const obj = value as object & { toJSON?: () => unknown };
	if (typeof obj.toJSON === "function") return encode(obj.toJSON(), ancestors);
	if (ancestors.includes(obj)) throw new TypeError("canonicalJson: the value contains a cycle");
	ancestors.push(obj);
	try {
		if (Array.isArray(obj)) {
			// A hole, like undefined, is null in an array, as JSON.stringify writes it.
			let out = "[";
			for (let i = 0; i < obj.length; i++) {
				if (i > 0) out += ",";
				out += encode(obj[i], ancestors) ?? "null";
			}
			return `${out}]`;
		}
		const record = obj as Record<string, unknown>;
		const keys = Object.keys(record).sort();
		let out = "{";
		for (let i = 0; i < keys.length; i++) {
			const key = keys[i]!;
			const encoded = encode(record[key], ancestors);
			if (encoded === undefined) continue;
			if (out.length > 1) out += ",";
			out += `${JSON.stringify(key)}:${encoded}`;
		}
		return `${out}}`;
	} finally {
		ancestors.pop();
	}
}

/** The hashed fields with `data` already written as its canonical JSON text, as a store keeps it. */
export type CanonicalAuditFields = Omit<HashedAuditFields, "data"> & { data: string };

/** A record's place in the chain: what links it to its neighbours. */
export interface ChainLink {
	seq: number;
	prev_hash: string;
	hash: string;
}

/**
 * The canonical JSON of the hashed fields, given the canonical text of `data`: the same bytes
 * canonicalJson gives for the whole object (keys in sorted order, undefined fields dropped), built
 * without decoding or re-encoding data, so a store that keeps data canonical can hash what it holds.
 */
// Shared by the scalar fields of every body; encode leaves it empty again even when it throws.
const SCALAR: object[] = [];

export function canonicalBody(fields: CanonicalAuditFields): string {
	const { call_id, data, kind, seq, session, time, turn } = fields;
	// The shape every real record has, written out directly: this is what verification spends its
	// time on. For these types the template is exactly what encode gives (a finite number's String
	// is its JSON); anything else takes the general path below.
	const head = call_id === undefined ? "{" : typeof call_id === "string" ? `{"call_id":${JSON.stringify(call_id)},` : undefined;
	if (
		head !== undefined &&
		typeof data === "string" &&
		typeof kind === "string" &&
		typeof session === "string" &&
		typeof time === "string" &&
		Number.isFinite(seq) &&
		Number.isFinite(turn)
	) {
		return `${head}"data":${data},"kind":${JSON.stringify(kind)},"seq":${seq},"session":${JSON.stringify(session)},"time":${JSON.stringify(time)},"turn":${turn}}`;
	}
	let body = "{";
	const add = (key: string, encoded: string | undefined) => {
		if (encoded === undefined) return;
		body += `${body.length > 1 ? "," : ""}"${key}":${encoded}`;
	};
	// Sorted key order, which canonicalJson would give: call_id, data, kind, seq, session, time, turn.
	add("call_id", encode(fields.call_id, SCALAR));
	add("data", fields.data);
	add("kind", encode(fields.kind, SCALAR));
	add("seq", encode(fields.seq, SCALAR));
	add("session", encode(fields.session, SCALAR));
	add("time", encode(fields.time, SCALAR));
	add("turn", encode(fields.turn, SCALAR));
	return `${body}}`;
}

/** sha256 hex over prevHash, a newline and a record's canonical body. */
export function bodyHash(prevHash: string, body: string): string {
	return sha256Hex(`${prevHash}\n${body}`);
}

/** sha256 hex over prevHash, a newline, and the canonical JSON of the hashed fields. */
export function auditHash(prevHash: string, fields: HashedAuditFields): string {
	// Pick the fields explicitly so extra properties on a full record (hash, prev_hash) never leak in.
	const data = encode(fields.data, []);
	const { seq, time, session, turn, kind, call_id } = fields;
	return bodyHash(prevHash, canonicalBody({ seq, time, session, turn, kind, call_id, data: data as string }));
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
		const broken = this.checkLink(record);
		if (broken) return broken;
		if (auditHash(record.prev_hash, record) !== record.hash) {
			return this.fail(record.seq, "hash does not match its contents (edited?)");
		}
		return this.accept(record);
	}

	/**
	 * Checks the next record from what a store holds: its link and the canonical body its stored
	 * columns spell (undefined when a column has a type no record has). Returns undefined when the
	 * record passed, the problem when it (or an earlier one) is bad, and false when the body does
	 * not hash to the stored hash: then nothing is decided yet and pushDecoded must follow.
	 */
	pushBody(link: ChainLink, body: string | undefined): ChainProblem | undefined | false {
		if (this.problem) return this.problem;
		const broken = this.checkLink(link);
		if (broken) return broken;
		if (body === undefined || bodyHash(link.prev_hash, body) !== link.hash) return false;
		return this.accept(link);
	}

	/**
	 * Like pushBody, on the line a store spells in its own query, read by position:
	 * `<seq> <hash> <prev_hash>\n<body>`, where `at` is the index of the hash, the hash and the
	 * prev_hash are 64 characters each with a space between them and a newline after, and everything
	 * from the prev_hash on is exactly what the hash covers (the caller has checked the separators and
	 * read `seq`). False when the text does not hash to the hash it carries: nothing is decided yet.
	 */
	pushLine(seq: number, line: string, at: number): ChainProblem | undefined | false {
		if (this.problem) return this.problem;
		const hashed = at + 65;
		// Cut-out copies compared with ===: V8 does that faster than startsWith at an offset.
		const hash = line.slice(at, hashed - 1);
		const prev = line.slice(hashed, hashed + 64);
		if (seq !== this.expectedSeq || prev !== this.prevHash) return this.checkLink({ seq, hash, prev_hash: prev }) ?? false;
		if (sha256Hex(line.slice(hashed)) !== hash) return false;
		this.prevHash = hash;
		this.expectedSeq = seq + 1;
		this.passed += 1;
		return undefined;
	}

	/**
	 * Decides a record whose stored body did not hash (after pushBody returned false), from the
	 * record decoded, or the reason it cannot be. Only where `decodedMayHash` (a record written
	 * before its store kept data in canonical form) may a decoded record whose contents hash pass.
	 */
	pushDecoded(link: ChainLink, record: AuditRecord | string, decodedMayHash: boolean): ChainProblem | undefined {
		if (this.problem) return this.problem;
		if (typeof record === "string") return this.fail(link.seq, record);
		if (decodedMayHash && auditHash(record.prev_hash, record) === record.hash) return this.accept(link);
		return this.fail(link.seq, "hash does not match its contents (edited?)");
	}

	/** A row with no readable record in it: the seq order is checked first, then `reason` is the problem. */
	pushUnreadable(seq: number, reason: string): ChainProblem {
		if (this.problem) return this.problem;
		if (seq !== this.expectedSeq) return this.checkLink({ seq, prev_hash: this.prevHash, hash: "" })!;
		return this.fail(seq, reason);
	}

	private checkLink(link: ChainLink): ChainProblem | undefined {
		const expected = this.expectedSeq;
		if (link.seq !== expected) {
			const why =
				typeof link.seq === "number" && link.seq > expected ? "a record was deleted?" : "records out of order or duplicated?";
			return this.fail(expected, `expected seq ${expected}, found ${String(link.seq)} (${why})`);
		}
		if (link.prev_hash !== this.prevHash) {
			const before = expected === 1 ? "the genesis hash" : `record ${expected - 1}`;
			return this.fail(expected, `prev_hash does not match ${before} (reordered or deleted?)`);
		}
		return undefined;
	}

	private accept(link: ChainLink): undefined {
		this.prevHash = link.hash;
		this.expectedSeq = link.seq + 1;
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
