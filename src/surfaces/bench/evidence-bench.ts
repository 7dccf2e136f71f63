/**
 * The two benchmarks of the evidence store, run over one SQLite state dir: durable appends first,
 * then verification of the chain those appends built (topped up to the requested length), so the
 * chain is made once rather than twice.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import { benchAppends } from "./appends.js";
import { benchAuditVerify } from "./audit-verify.js";
import type { AppendReport, AuditVerifyReport } from "./bench-types.js";

export interface EvidenceBenchOptions {
	appendsPerRound: number;
	chainRecords: number;
	rounds: number;
	warmupRounds: number;
	tempDir: string;
	onProgress: (line: string) => void;
}

const SESSION = "bench-evidence";

export async function benchEvidence(options: EvidenceBenchOptions): Promise<{ appends: AppendReport; auditVerify: AuditVerifyReport }> {
	const { rounds, warmupRounds, onProgress } = options;
	const base = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-evidence-")));
	const store = openSqliteStore(join(base, "state"));
	try {
		await store.createSession({ id: SESSION, workspace: base, mode: "workspace-write", model: "scripted:bench", created_at: new Date().toISOString() });
		const appends = await benchAppends({
			store,
			// Beside the database, so both pay the same filesystem's fsync.
			logFile: join(base, "state", "yardstick.jsonl"),
			session: SESSION,
			appendsPerRound: options.appendsPerRound,
			rounds,
			warmupRounds,
			onProgress,
		});
		const auditVerify = await benchAuditVerify({ store, session: SESSION, chainRecords: options.chainRecords, rounds, warmupRounds, onProgress });
		return { appends, auditVerify };
	} finally {
		await store.close();
		rmSync(base, { recursive: true, force: true });
	}
}
