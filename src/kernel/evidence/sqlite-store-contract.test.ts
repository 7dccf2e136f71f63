/** The Store contract on SQLite opened as Warden opens it: with the kernel's chain and label rules. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStoreContractTests } from "../../store/test-support/contract-tests.js";
import { STORE_RULES } from "./store-rules.js";
import { openSqliteStore } from "./store-rows.js";

runStoreContractTests("sqlite, kernel rules", STORE_RULES, async () => {
	const dir = mkdtempSync(join(tmpdir(), "warden-kernel-contract-"));
	const store = openSqliteStore(dir);
	return {
		store,
		async cleanup() {
			await store.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
});
