/**
 * StoreRules for the store's own tests, written here so src/store needs nothing from the kernel:
 * a sha256 chain over sorted-key JSON and a two-axis label lattice. The kernel's real rules
 * (src/kernel/evidence/store-rules.ts) run the same contract suite on the kernel side.
 */
import { createHash } from "node:crypto";
import type { AuditChainRules, ChainWalker, LabelRules, StoreRules } from "../store-rules.js";
import type { ChainCheck, LabelRow } from "../store.js";

export const TEST_GENESIS = "0".repeat(64);
const LEVELS = ["public", "internal", "secret"];
const INTEGRITIES = ["trusted", "untrusted"];
const SOURCE_KINDS = ["file", "url", "call", "user", "system", "model", "detected", "env"];
/** Source references kept on a joined label (the rest are counted in `omitted`). */
export const TEST_MAX_SOURCES = 16;

function sortedJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : sortedJson(v))).join(",")}]`;
	if (value !== null && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
		entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(",")}}`;
	}
	return JSON.stringify(value);
}

/** Keys in sorted order; data is already canonical text and goes in as it is. */
function link(prevHash: string, row: { seq: unknown; time: unknown; session: unknown; turn: unknown; kind: unknown; call_id?: unknown; data: unknown }): { body: string; hash: string } {
	const head = row.call_id === undefined || row.call_id === null ? "" : `"call_id":${JSON.stringify(row.call_id)},`;
	const body = `{${head}"data":${String(row.data)},"kind":${JSON.stringify(row.kind)},"seq":${JSON.stringify(row.seq)},"session":${JSON.stringify(row.session)},"time":${JSON.stringify(row.time)},"turn":${JSON.stringify(row.turn)}}`;
	return { body, hash: createHash("sha256").update(`${prevHash}\n${body}`).digest("hex") };
}

class TestWalker implements ChainWalker {
	private next = 1;
	private prev = TEST_GENESIS;
	private checked = 0;
	private problem: { seq: number; reason: string } | undefined;

	push(row: readonly unknown[] | { seq: number; unreadable: string }): { seq: number; reason: string } | undefined {
		if (this.problem) return this.problem;
		if (!Array.isArray(row)) return this.fail(this.next, (row as { unreadable: string }).unreadable);
		const [seq, time, session, turn, kind, call_id, data, prev_hash, hash] = row;
		if (seq !== this.next) return this.fail(this.next, `expected seq ${this.next}, found ${String(seq)}`);
		if (prev_hash !== this.prev) return this.fail(this.next, "prev_hash does not match");
		if (link(this.prev, { seq, time, session, turn, kind, call_id, data }).hash !== hash) return this.fail(this.next, "hash does not match");
		this.prev = hash as string;
		this.next += 1;
		this.checked += 1;
		return undefined;
	}

	/** `<seq> <hash> <prev_hash>\n<body>`; anything that does not check goes to push. */
	pushHashed(line: unknown): { seq: number; reason: string } | undefined | false {
		if (this.problem) return this.problem;
		if (typeof line !== "string") return false;
		const [seq, hash, rest] = [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1, line.indexOf(" ") + 65), line.slice(line.indexOf(" ") + 66)];
		if (Number(seq) !== this.next || !rest.startsWith(`${this.prev}\n`)) return false;
		if (createHash("sha256").update(rest).digest("hex") !== hash) return false;
		this.prev = hash;
		this.next += 1;
		this.checked += 1;
		return undefined;
	}

	finish(head: { seq: number; hash: string }): ChainCheck {
		if (!this.problem && (head.seq !== this.next - 1 || (head.seq > 0 && head.hash !== this.prev))) this.fail(this.next, "the head does not match the chain");
		return this.problem ? { ok: false, checked: this.checked, firstBad: this.problem } : { ok: true, checked: this.checked };
	}

	private fail(seq: number, reason: string) {
		this.problem = { seq, reason: `record ${seq}: ${reason}` };
		return this.problem;
	}
}

const chain: AuditChainRules = {
	genesis: TEST_GENESIS,
	canonicalData: sortedJson,
	link,
	walker: () => new TestWalker(),
};

function problem(value: unknown): string | undefined {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return "not an object";
	const l = value as Record<string, unknown>;
	if (!LEVELS.includes(l.sensitivity as string)) return `sensitivity ${String(l.sensitivity)}`;
	if (!INTEGRITIES.includes(l.integrity as string)) return `integrity ${String(l.integrity)}`;
	if (!Array.isArray(l.sources)) return "sources is not a list";
	for (const s of l.sources as { kind?: unknown; ref?: unknown }[]) {
		if (s === null || typeof s !== "object" || !SOURCE_KINDS.includes(s.kind as string) || typeof s.ref !== "string") return "a source is malformed";
	}
	if (l.omitted !== undefined && !(Number.isInteger(l.omitted) && (l.omitted as number) >= 0)) return `omitted ${String(l.omitted)}`;
	return undefined;
}

function join(a: LabelRow, b: LabelRow): LabelRow {
	const sensitivity = LEVELS[Math.max(LEVELS.indexOf(a.sensitivity), LEVELS.indexOf(b.sensitivity))]!;
	const integrity = a.integrity === "untrusted" || b.integrity === "untrusted" ? "untrusted" : "trusted";
	const sources: LabelRow["sources"] = [];
	let omitted = (a.omitted ?? 0) + (b.omitted ?? 0);
	for (const s of [...a.sources, ...b.sources]) {
		if (sources.some((t) => t.kind === s.kind && t.ref === s.ref && t.sha256 === s.sha256)) continue;
		if (sources.length < TEST_MAX_SOURCES) sources.push(s);
		else omitted++;
	}
	return omitted > 0 ? { sensitivity, integrity, sources, omitted } : { sensitivity, integrity, sources };
}

const labels: LabelRules = { problem, join };

export const TEST_RULES: StoreRules = { chain, labels };
