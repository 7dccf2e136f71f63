/**
 * Where a turn's deferred evidence becomes durable: a read's with the next model request (before
 * its result is sent anywhere), a write's when the call that made the effect ends. Observed from a
 * second connection to the same database, as a crash would leave it.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../kernel/evidence/store-rows.js";
import type { ModelProvider, ModelRequest } from "../models/provider.js";
import { ScriptedModel } from "../models/scripted.js";
import { DB_FILE } from "../store/sqlite-open.js";
import { Runtime } from "./runtime.js";

let root: string;
beforeEach(async () => {
	root = await mkdtemp(join(tmpdir(), "warden-call-barriers-"));
	await mkdir(join(root, "ws"));
	await writeFile(join(root, "ws", "notes.txt"), "notes\n");
});
afterEach(async () => {
	await rm(root, { recursive: true, force: true });
});

/** What another process reading the state dir would see committed right now. */
function committed(stateDir: string, sql: string): number {
	const db = new Database(join(stateDir, DB_FILE), { readonly: true });
	try {
		return (db.prepare(sql).get() as { n: number }).n;
	} finally {
		db.close();
	}
}

const completedCalls = "SELECT COUNT(*) AS n FROM events WHERE kind = 'tool.completed'";

describe("a turn's barriers", () => {
	it("commits a read's evidence with the next model request, before the model is sent its result, and not at the call's end", async () => {
		const stateDir = join(root, "state");
		const store = openSqliteStore(stateDir);
		const runtime = await Runtime.open({ stateDir, store });
		const reads = 4;
		const steps: unknown[] = Array.from({ length: reads }, () => ({ tool_calls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }));
		const scripted = ScriptedModel.fromPlan({ steps: [...steps, { text: "done" }] }, "scripted:barriers");
		const seenAtRequest: number[] = [];
		const model: ModelProvider = {
			spec: scripted.spec,
			complete: (request: ModelRequest, signal: AbortSignal) => {
				seenAtRequest.push(committed(stateDir, completedCalls));
				return scripted.complete(request, signal);
			},
		};
		const session = await runtime.openSession({ workspace: join(root, "ws"), model, mode: "workspace-write" });
		const batches = store.observeBatches();
		const result = await session.send("read the notes");
		expect(result.status).toBe("completed");
		// Every read before a request is on record when that request goes out.
		expect(seenAtRequest).toEqual([0, 1, 2, 3, 4]);
		// The turn's start, one commit per model request (reads + 1) and one at the turn's end: none of its own per read.
		expect(batches.length).toBe(1 + (reads + 1) + 1);
		await runtime.close();
	});

	it("commits a write's settlement before the host hears the call completed", async () => {
		const stateDir = join(root, "state");
		const runtime = await Runtime.open({ stateDir, store: openSqliteStore(stateDir) });
		const plan = { steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "out.txt", content: "x\n" } }] }, { text: "done" }] };
		const session = await runtime.openSession({ workspace: join(root, "ws"), model: ScriptedModel.fromPlan(plan, "scripted:w"), mode: "workspace-write" });
		const atCompletion: number[] = [];
		const result = await session.send("write", {
			onEvent: (event) => {
				if (event.kind === "tool.completed") {
					atCompletion.push(committed(stateDir, "SELECT COUNT(*) AS n FROM operations WHERE state = 'committed'"));
					atCompletion.push(committed(stateDir, completedCalls));
				}
			},
		});
		expect(result.status).toBe("completed");
		expect(atCompletion).toEqual([1, 1]);
		await runtime.close();
	});
});
