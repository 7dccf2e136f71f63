/**
 * Audit-chain verification per second: SqliteStore.verifyAudit over the whole chain, and the pure
 * verifier over the same records in memory, against the floor of the work: sha256 of exactly the
 * bytes each record's hash covers, prepared beforehand, hashed with the verifier's own sha256Hex (so a
 * faster way to hash makes the yardstick faster too, never only the subject). The yardstick checks
 * every digest against the stored hash, so it cannot drift from what the verifier hashes without failing.
 */
import { performance } from "node:perf_hooks";
import { canonicalJson, verifyChain } from "../../kernel/evidence/audit-chain.js";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import { sha256Hex } from "../../kernel/evidence/sha256.js";
import type { Store } from "../../store/store.js";
import type { AuditVerifyReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { rateTiming } from "./call-timing.js";
import { benchAuditInput } from "./evidence-mix.js";
import { toAuditRecords } from "../../kernel/evidence/store-rows.js";

export interface AuditVerifyBenchOptions {
	/** The durable store whose chain is verified; topped up with appendAudit to `chainRecords`. */
	store: Store;
	session: string;
	chainRecords: number;
	rounds: number;
	warmupRounds: number;
	onProgress: (line: string) => void;
}

type Variant = "yardstick" | "inMemory" | "sqlite";

/** What auditHash feeds to sha256 for this record. */
function hashedBytes(record: AuditRecord): string {
	const { seq, time, session, turn, kind, call_id, data } = record;
	return `${record.prev_hash}\n${canonicalJson({ seq, time, session, turn, kind, call_id, data })}`;
}

async function topUp(store: Store, session: string, target: number, onProgress: (line: string) => void): Promise<number> {
	const head = (await store.listAudit({ limit: 1 })).at(-1)?.seq ?? 0;
	if (head < target) onProgress(`audit verify: appending ${target - head} records to reach a chain of ${target}`);
	for (let i = head; i < target; i++) await store.appendAudit(benchAuditInput(session, i));
	return Math.max(head, target);
}

export async function benchAuditVerify(options: AuditVerifyBenchOptions): Promise<AuditVerifyReport> {
	const { store, rounds, warmupRounds, onProgress } = options;
	const records = await topUp(store, options.session, options.chainRecords, onProgress);
	const chain = toAuditRecords(await store.listAudit());
	if (chain.length !== records) throw new BenchError(`the audit chain holds ${chain.length} records, expected ${records}`);
	const last = chain.at(-1)!;
	const head = { seq: last.seq, hash: last.hash };
	const bytes = chain.map(hashedBytes);
	const hashes = chain.map((record) => record.hash);

	const variants: Record<Variant, () => Promise<number>> = {
		yardstick: async () => {
			let matched = 0;
			for (let i = 0; i < bytes.length; i++) {
				if (sha256Hex(bytes[i]!) === hashes[i]) matched++;
			}
			return matched;
		},
		inMemory: async () => {
			const result = verifyChain(chain, head);
			return result.ok ? result.checked : -1;
		},
		sqlite: async () => {
			const result = await store.verifyAudit();
			return result.ok ? result.checked : -1;
		},
	};
	const names = Object.keys(variants) as Variant[];
	const samples: Record<Variant, number[]> = { yardstick: [], inMemory: [], sqlite: [] };

	onProgress(`audit verify: ${warmupRounds} warm-up and ${rounds} measured passes over ${records} records per variant, interleaved`);
	for (let r = 0; r < warmupRounds + rounds; r++) {
		for (const name of names) {
			const started = performance.now();
			const checked = await variants[name]();
			const elapsedUs = (performance.now() - started) * 1000;
			// Also keeps the work from being optimized away: every pass must have checked every record.
			if (checked !== records) throw new BenchError(`audit verify (${name}) checked ${checked} of ${records} records in pass ${r + 1}`);
			if (r >= warmupRounds) samples[name].push(elapsedUs / records);
		}
	}

	const yardstick = rateTiming(samples.yardstick);
	const inMemory = rateTiming(samples.inMemory);
	const sqlite = rateTiming(samples.sqlite);
	return {
		records,
		rounds,
		warmupRounds,
		hashedBytes: bytes.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / records,
		yardstick,
		inMemory,
		sqlite,
		inMemoryRatio: inMemory.medianUs / yardstick.medianUs,
		ratio: sqlite.medianUs / yardstick.medianUs,
	};
}
