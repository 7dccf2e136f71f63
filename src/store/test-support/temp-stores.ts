/** Temp state dirs and the stores opened on them, closed and removed after each test. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { SqliteStore } from "../sqlite-store.js";

export interface TempStores {
	/** A fresh directory, removed after the test. */
	tempDir(): string;
	/** Keeps `store` to close after the test; returns it. */
	track(store: SqliteStore): SqliteStore;
}

/** Call once at a test file's top level: registers the afterEach that cleans up. */
export function tempStores(prefix: string): TempStores {
	const dirs: string[] = [];
	const stores: SqliteStore[] = [];
	afterEach(async () => {
		for (const store of stores.splice(0)) await store.close();
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});
	return {
		tempDir() {
			const dir = mkdtempSync(join(tmpdir(), prefix));
			dirs.push(dir);
			return dir;
		},
		track(store) {
			stores.push(store);
			return store;
		},
	};
}
