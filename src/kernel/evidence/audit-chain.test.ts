import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ChainVerifier, GENESIS_HASH, auditHash, canonicalBody, canonicalJson, verifyChain } from "./audit-chain.js";
import type { AuditInput, AuditRecord } from "./audit-types.js";

function buildChain(inputs: AuditInput[]): AuditRecord[] {
	const records: AuditRecord[] = [];
	let prev = GENESIS_HASH;
	inputs.forEach((input, i) => {
		const fields = {
			...input,
			seq: i + 1,
			time: `2025-01-01T00:00:0${i % 10}.000Z`,
		};
		const hash = auditHash(prev, fields);
		records.push({ ...fields, prev_hash: prev, hash });
		prev = hash;
	});
	return records;
}

function sampleChain(n: number): AuditRecord[] {
	return buildChain(
		Array.from({ length: n }, (_, i) => ({
			session: "s1",
			turn: 1 + Math.floor(i / 3),
			kind: i % 2 ? ("effect" as const) : ("permission.decided" as const),
			call_id: i % 3 ? `call-${i}` : undefined,
			data: { index: i, nested: { list: [i, "x", { b: 2, a: 1 }] } },
		})),
	);
}

describe("canonicalJson", () => {
	it("sorts keys at every depth and has no whitespace", () => {
		expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" } })).toBe(
			'{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
		);
	});

	it("is the same whatever order the keys were built in", () => {
		const one = { kind: "effect", data: { path: "a.txt", bytes: 3 } };
		const two = { data: { bytes: 3, path: "a.txt" }, kind: "effect" };
		expect(canonicalJson(one)).toBe(canonicalJson(two));
	});

	it("drops undefined fields, keeps array positions, and maps non-finite numbers to null", () => {
		expect(canonicalJson({ a: undefined, b: [undefined, Number.NaN, 1], c: null })).toBe(
			'{"b":[null,null,1],"c":null}',
		);
	});

	it("escapes strings as JSON does and honours toJSON", () => {
		expect(canonicalJson({ s: 'quote " and \n newline', d: new Date(0) })).toBe(
			'{"d":"1970-01-01T00:00:00.000Z","s":"quote \\" and \\n newline"}',
		);
	});

	it("refuses cycles and bigints instead of producing something unstable", () => {
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
		expect(() => canonicalJson({ n: 1n })).toThrow(/bigint/);
	});

	it("allows the same object twice when it is not a cycle", () => {
		const shared = { x: 1 };
		expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
	});

	it("sorts integer-like keys as text, which an object's own order does not", () => {
		expect(canonicalJson({ b: 1, 10: "ten", 9: "nine", a: { 2: 0, 1: 0 } })).toBe('{"10":"ten","9":"nine","a":{"1":0,"2":0},"b":1}');
	});

	it("keeps an own __proto__ key (as JSON.parse makes one) in its place", () => {
		const parsed = JSON.parse('{"z":1,"__proto__":{"polluted":true},"a":2}') as unknown;
		expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"a":2,"z":1}');
		expect(canonicalJson({ list: [parsed] })).toBe('{"list":[{"__proto__":{"polluted":true},"a":2,"z":1}]}');
	});

	it("writes a hole in an array as null, as JSON.stringify does", () => {
		// biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
		expect(canonicalJson({ a: [, 1] })).toBe('{"a":[null,1]}');
	});

	it("applies toJSON at every depth, also to what a toJSON returned", () => {
		const inner = { toJSON: () => ({ y: 2, x: 1 }) };
		const outer = { toJSON: () => inner };
		expect(canonicalJson({ b: [outer], a: new Date(0) })).toBe('{"a":"1970-01-01T00:00:00.000Z","b":[{"x":1,"y":2}]}');
	});

	it("lists a boxed primitive's keys, as it always has", () => {
		expect(canonicalJson({ s: Object("ab") })).toBe('{"s":{"0":"a","1":"b"}}');
	});

	it("gives the bytes of a plain sorted-key encoder for arbitrary values", () => {
		// The reference: every key sorted, spelled out by hand, nothing copied.
		const reference = (value: unknown): string | undefined => {
			if (value === null) return "null";
			if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
			if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
			if (typeof value !== "object") return undefined;
			const withJson = value as { toJSON?: () => unknown };
			if (typeof withJson.toJSON === "function") return reference(withJson.toJSON());
			if (Array.isArray(value)) return `[${Array.from(value, (item) => reference(item) ?? "null").join(",")}]`;
			const parts: string[] = [];
			for (const key of Object.keys(value).sort()) {
				const encoded = reference((value as Record<string, unknown>)[key]);
				if (encoded !== undefined) parts.push(`${JSON.stringify(key)}:${encoded}`);
			}
			return `{${parts.join(",")}}`;
		};
		let seed = 7;
		const next = (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed % n;
		};
		const KEYS = ["a", "b", "z", "A", "_", "10", "9", "0", "é", "__proto__", "k e y", "\u2028"];
		const make = (depth: number): unknown => {
			const pick = next(depth > 3 ? 6 : 9);
			if (pick === 0) return null;
			if (pick === 1) return next(1000) - 500 + next(7) / 8;
			if (pick === 2) return ["x", 'q"uote', "line\nbreak", "\ud800", ""][next(5)];
			if (pick === 3) return next(2) === 0;
			if (pick === 4) return [undefined, Number.NaN, Number.POSITIVE_INFINITY][next(3)];
			if (pick === 5) return new Date(next(100000));
			if (pick === 6) return Array.from({ length: next(4) }, () => make(depth + 1));
			const record: Record<string, unknown> = {};
			for (let i = next(5); i > 0; i--) Object.defineProperty(record, KEYS[next(KEYS.length)]!, { value: make(depth + 1), enumerable: true, writable: true, configurable: true });
			return record;
		};
		for (let i = 0; i < 2000; i++) {
			const value = { root: make(0) };
			expect(canonicalJson(value)).toBe(reference(value));
		}
	});
});

describe("auditHash", () => {
	it("is sha256 over prev hash, newline and the canonical JSON of the hashed fields", () => {
		const fields = {
			seq: 1,
			time: "2025-01-01T00:00:00.000Z",
			session: "s",
			turn: 0,
			kind: "session.started" as const,
			data: { mode: "plan" },
		};
		const expected = createHash("sha256")
			.update(
				`${GENESIS_HASH}\n{"data":{"mode":"plan"},"kind":"session.started","seq":1,"session":"s","time":"2025-01-01T00:00:00.000Z","turn":0}`,
			)
			.digest("hex");
		expect(auditHash(GENESIS_HASH, fields)).toBe(expected);
		expect(GENESIS_HASH).toMatch(/^0{64}$/);
	});

	it("ignores extra properties such as the record's own hash", () => {
		const [record] = sampleChain(1);
		expect(
			auditHash(GENESIS_HASH, {
				...record!,
				hash: "f".repeat(64),
			} as AuditRecord),
		).toBe(record!.hash);
	});

	it("changes when any hashed field changes", () => {
		const [record] = sampleChain(1);
		const base = auditHash(GENESIS_HASH, record!);
		expect(auditHash(GENESIS_HASH, { ...record!, turn: 99 })).not.toBe(base);
		expect(auditHash(GENESIS_HASH, { ...record!, call_id: "other" })).not.toBe(base);
		expect(auditHash(GENESIS_HASH, { ...record!, data: { index: 1 } })).not.toBe(base);
		expect(auditHash("1".repeat(64), record!)).not.toBe(base);
	});
});

describe("verifyChain", () => {
	it("accepts an intact chain and counts it", () => {
		expect(verifyChain(sampleChain(10))).toEqual({ ok: true, checked: 10 });
		expect(verifyChain([])).toEqual({ ok: true, checked: 0 });
	});

	it("names an edited record", () => {
		const chain = sampleChain(10);
		chain[6] = { ...chain[6]!, data: { index: 6, tampered: true } };
		expect(verifyChain(chain)).toEqual({
			ok: false,
			checked: 6,
			firstBad: {
				seq: 7,
				reason: "record 7: hash does not match its contents (edited?)",
			},
		});
	});

	it("names a record whose hash was recomputed after editing, at the next link", () => {
		const chain = sampleChain(6);
		const edited = { ...chain[2]!, data: { forged: true } };
		edited.hash = auditHash(edited.prev_hash, edited);
		chain[2] = edited;
		const result = verifyChain(chain);
		expect(result.ok).toBe(false);
		if (!result.ok)
			expect(result.firstBad).toEqual({
				seq: 4,
				reason: "record 4: prev_hash does not match record 3 (reordered or deleted?)",
			});
	});

	it("names a deleted record by the seq that is missing", () => {
		const chain = sampleChain(10);
		chain.splice(4, 1);
		const result = verifyChain(chain);
		expect(result).toEqual({
			ok: false,
			checked: 4,
			firstBad: {
				seq: 5,
				reason: "record 5: expected seq 5, found 6 (a record was deleted?)",
			},
		});
	});

	it("detects a deletion that renumbered the rest, by the broken link", () => {
		const chain = sampleChain(8);
		const renumbered = [...chain.slice(0, 3), ...chain.slice(4).map((r) => ({ ...r, seq: r.seq - 1 }))];
		const result = verifyChain(renumbered);
		expect(result.ok).toBe(false);
		if (!result.ok)
			expect(result.firstBad.reason).toBe("record 4: prev_hash does not match record 3 (reordered or deleted?)");
	});

	it("detects two records with their seq values swapped", () => {
		const chain = sampleChain(6);
		const a = chain[2]!;
		const b = chain[3]!;
		const swapped = [...chain.slice(0, 2), { ...b, seq: 3 }, { ...a, seq: 4 }, ...chain.slice(4)];
		const result = verifyChain(swapped);
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.firstBad.seq).toBe(3);
			expect(result.firstBad.reason).toBe("record 3: prev_hash does not match record 2 (reordered or deleted?)");
		}
	});

	it("detects records handed over out of order", () => {
		const chain = sampleChain(5);
		const result = verifyChain([chain[0]!, chain[2]!, chain[1]!, chain[3]!, chain[4]!]);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.firstBad.seq).toBe(2);
	});

	it("detects a forged first record", () => {
		const chain = sampleChain(3);
		chain[0] = { ...chain[0]!, prev_hash: "a".repeat(64) };
		const result = verifyChain(chain);
		expect(result.ok).toBe(false);
		if (!result.ok)
			expect(result.firstBad).toEqual({
				seq: 1,
				reason: "record 1: prev_hash does not match the genesis hash (reordered or deleted?)",
			});
	});

	it("uses the store's head to catch records removed from the end", () => {
		const chain = sampleChain(5);
		const head = { seq: 5, hash: chain[4]!.hash };
		expect(verifyChain(chain, head)).toEqual({ ok: true, checked: 5 });
		const truncated = verifyChain(chain.slice(0, 3), head);
		expect(truncated.ok).toBe(false);
		if (!truncated.ok) expect(truncated.firstBad.seq).toBe(4);
		expect(verifyChain(chain, { seq: 5, hash: "b".repeat(64) }).ok).toBe(false);
		expect(verifyChain(chain, { seq: 4, hash: chain[3]!.hash }).ok).toBe(false);
	});

	it("stops at the first problem even when later records are also bad", () => {
		const chain = sampleChain(10);
		chain[2] = { ...chain[2]!, kind: "tool.outcome" };
		chain[8] = { ...chain[8]!, turn: 42 };
		const result = verifyChain(chain);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.firstBad.seq).toBe(3);
	});
});

describe("canonicalBody", () => {
	const fields = (over: Record<string, unknown>) =>
		({ seq: 3, time: "2025-01-01T00:00:00.000Z", session: "s1", turn: 2, kind: "effect", call_id: "c1", data: { b: [1, { d: 1, c: 2 }], a: "x" }, ...over }) as Parameters<typeof auditHash>[1];

	it.each([
		["a typical record", {}],
		["no call_id", { call_id: undefined }],
		["an empty call_id", { call_id: "" }],
		["strings that need escaping", { session: 'quote " back \\ nl \n tab \t \u0001', kind: "k\u2028", time: "\ud800" }],
		["non-ASCII text", { session: "sesión ✓ 🚀" }],
		["negative, zero and large numbers", { turn: -0, seq: 1e21 }],
		["a turn that is not a number (the general path)", { turn: "2" }],
		["a missing kind (the general path)", { kind: undefined }],
		["a null call_id (the general path)", { call_id: null }],
		["non-finite numbers (the general path)", { turn: Number.NaN, seq: Number.POSITIVE_INFINITY }],
	])("gives exactly canonicalJson's bytes for %s", (_name, over) => {
		const f = fields(over);
		const { seq, time, session, turn, kind, call_id, data } = f;
		const expected = canonicalJson({ seq, time, session, turn, kind, call_id, data });
		expect(canonicalBody({ seq, time, session, turn, kind, call_id, data: canonicalJson(data) })).toBe(expected);
		expect(auditHash(GENESIS_HASH, f)).toBe(createHash("sha256").update(`${GENESIS_HASH}\n${expected}`).digest("hex"));
	});
});

describe("ChainVerifier from stored bodies", () => {
	const chain = sampleChain(4);
	const bodyOf = (record: AuditRecord) => {
		const { seq, time, session, turn, kind, call_id, data } = record;
		return canonicalBody({ seq, time, session, turn, kind, call_id, data: canonicalJson(data) });
	};

	it("passes records whose stored body hashes, and checks their links as push does", () => {
		const verifier = new ChainVerifier();
		for (const record of chain) expect(verifier.pushBody(record, bodyOf(record))).toBeUndefined();
		expect(verifier.finish({ seq: 4, hash: chain[3]!.hash })).toEqual({ ok: true, checked: 4 });
		const skipped = new ChainVerifier();
		skipped.pushBody(chain[0]!, bodyOf(chain[0]!));
		expect(skipped.pushBody(chain[2]!, bodyOf(chain[2]!))).toEqual({ seq: 2, reason: "record 2: expected seq 2, found 3 (a record was deleted?)" });
	});

	it("leaves a body that does not hash undecided, and accepts the decoded record only where allowed", () => {
		const record = chain[0]!;
		const reordered = `{"turn":${record.turn},${bodyOf(record).slice(1, -1).replace(/,"turn":\d+$/, "")}}`;
		const strict = new ChainVerifier();
		expect(strict.pushBody(record, reordered)).toBe(false);
		expect(strict.pushDecoded(record, record, false)).toEqual({ seq: 1, reason: "record 1: hash does not match its contents (edited?)" });
		const legacy = new ChainVerifier();
		expect(legacy.pushBody(record, reordered)).toBe(false);
		expect(legacy.pushDecoded(record, record, true)).toBeUndefined();
		expect(legacy.checked).toBe(1);
		const forged = new ChainVerifier();
		expect(forged.pushBody(record, undefined)).toBe(false);
		expect(forged.pushDecoded(record, { ...record, data: { forged: true } }, true)).toEqual({ seq: 1, reason: "record 1: hash does not match its contents (edited?)" });
		const unreadable = new ChainVerifier();
		unreadable.pushBody(record, undefined);
		expect(unreadable.pushDecoded(record, "data is not valid JSON (edited?)", true)).toEqual({ seq: 1, reason: "record 1: data is not valid JSON (edited?)" });
	});
});
