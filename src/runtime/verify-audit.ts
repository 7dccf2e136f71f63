/**
 * `warden audit verify` without a Runtime: the chain check needs the store alone, opened read-only
 * exactly as Runtime.open({ readOnly: true }) opens it, so a one-shot verify does not load the
 * permission engine, the tools, the providers and the redactor only to close them again.
 */
import type { AuditVerifyResult } from "../kernel/evidence/audit-types.js";
import { openSqliteStore } from "../kernel/evidence/store-rows.js";
import { resolveStateDir } from "../store/state-dir.js";

export async function verifyStateDirAudit(options: { stateDir?: string; env?: NodeJS.ProcessEnv } = {}): Promise<AuditVerifyResult> {
	const store = openSqliteStore(resolveStateDir(options.stateDir, options.env ?? process.env), { readOnly: true });
	try {
		return await store.verifyAudit();
	} finally {
		await store.close();
	}
}
