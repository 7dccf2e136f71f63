/**
 * The memory rows' part of the Store contract: scoped records with their labels, found by words and
 * listed by filter, marked stale and forgotten. Called from runStoreContractTests, so every backend
 * runs it.
 */
import { describe, expect, it } from "vitest";
import type { MemoryRow } from "../memory-rows.js";
import type { LabelRow, Store } from "../store.js";

const UNTRUSTED_PAGE: LabelRow = { sensitivity: "internal", integrity: "untrusted", sources: [{ kind: "url", ref: "http://127.0.0.1:9/page" }] };
const SECRET_FILE: LabelRow = { sensitivity: "secret", integrity: "trusted", sources: [{ kind: "file", ref: ".env", sha256: "c".repeat(64) }] };
const PLAIN: LabelRow = { sensitivity: "internal", integrity: "trusted", sources: [] };

let counter = 0;
function record(over: Partial<MemoryRow> = {}): MemoryRow {
	counter++;
	return {
		id: `m${counter}`,
		scope: "project",
		scope_key: "/w/a",
		namespace: "notes",
		kind: "note",
		title: "build steps",
		tags: ["build"],
		content: "run make before the tests",
		path_hints: ["Makefile"],
		metadata: {},
		created_at: "2025-03-01T10:00:00.000Z",
		updated_at: "2025-03-01T10:00:00.000Z",
		stale: false,
		label: PLAIN,
		written_by_session: "s1",
		written_by_call: "call_1_1_1",
		...over,
	};
}

const PROJECT_A = [{ scope: "project" as const, scope_key: "/w/a" }];

export function describeMemoryContract(subject: () => Store): void {
	describe("memory records", () => {
		it("keeps every field of a record, its label and who wrote it, exactly", async () => {
			const store = subject();
			const row = record({ label: UNTRUSTED_PAGE, metadata: { tool: "web_fetch", n: 2 }, expires_at: "2030-01-01T00:00:00.000Z", tags: ["deploy", "ci"], path_hints: ["src/a.ts", "docs/ünï.md"] });
			await store.memory.put(row);
			expect(await store.memory.get(row.id)).toEqual(row);
			const hostWrite = record({ written_by_session: "host" });
			delete hostWrite.written_by_call;
			await store.memory.put(hostWrite);
			expect(await store.memory.get(hostWrite.id)).toEqual(hostWrite);
			expect(await store.memory.get("nope")).toBeUndefined();
		});

		it("reads a deferred record back before any barrier, finds it by its words, and the barrier settles it", async () => {
			const store = subject();
			const row = record({ title: "deferred outcome", content: "shell completed: make check" });
			const written = store.memory.put(row, undefined, { deferred: true });
			expect(await store.memory.get(row.id)).toEqual(row);
			expect((await store.memory.match({ scopes: PROJECT_A, terms: ["check"] })).map((m) => m.row.id)).toContain(row.id);
			await store.barrier();
			await written;
			expect(await store.memory.get(row.id)).toEqual(row);
		});

		it("inserts many records at once, or none when one of them is refused", async () => {
			const store = subject();
			const a = record();
			const b = record();
			await store.memory.putMany([a, b]);
			expect((await store.memory.list({ scopes: PROJECT_A })).map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
			const c = record();
			await expect(store.memory.putMany([c, a])).rejects.toThrow(/already exists/);
			expect(await store.memory.get(c.id)).toBeUndefined();
		});

		it("refuses a second record with the same id and a malformed label", async () => {
			const store = subject();
			const row = record();
			await store.memory.put(row);
			await expect(store.memory.put({ ...row, title: "other" })).rejects.toThrow(/already exists/);
			const bad = record({ label: { sensitivity: "top", integrity: "trusted", sources: [] } });
			await expect(store.memory.put(bad)).rejects.toThrow(/malformed label/);
			expect(await store.memory.get(bad.id)).toBeUndefined();
		});

		it("finds records by any of the words, title before content, only in the scopes asked for", async () => {
			const store = subject();
			const inTitle = record({ title: "deploy procedure", content: "ask the release team" });
			const inContent = record({ title: "misc", tags: [], content: "the deploy runs on friday" });
			const elsewhere = record({ scope_key: "/w/b", title: "deploy procedure" });
			const user = record({ scope: "user", scope_key: "", title: "deploy habits" });
			for (const r of [inTitle, inContent, elsewhere, user]) await store.memory.put(r);
			const hits = await store.memory.match({ terms: ["deploy"], scopes: PROJECT_A });
			expect(hits.map((h) => h.row.id)).toEqual([inTitle.id, inContent.id]);
			expect(hits[0]!.relevance).toBeGreaterThan(hits[1]!.relevance);
			expect(hits[1]!.relevance).toBeGreaterThan(0);
			const both = await store.memory.match({ terms: ["DEPLOY!"], scopes: [...PROJECT_A, { scope: "user", scope_key: "" }] });
			expect(both.map((h) => h.row.id).sort()).toEqual([inTitle.id, inContent.id, user.id].sort());
			expect(await store.memory.match({ terms: ["deploy"], scopes: [] })).toEqual([]);
			expect(await store.memory.match({ terms: ["", "  "], scopes: PROJECT_A })).toEqual([]);
			// Words are words: an FTS operator or quote in a query is just text.
			expect(await store.memory.match({ terms: ['deploy" OR content:*', "NEAR("], scopes: PROJECT_A })).toHaveLength(2);
		});

		it("leaves out expired and stale records unless asked, and filters by namespace and kind", async () => {
			const store = subject();
			const live = record({ title: "cache warm" });
			const expired = record({ title: "cache cold", expires_at: "2025-03-02T00:00:00.000Z" });
			const stale = record({ title: "cache old", stale: true });
			const other = record({ namespace: "tool-outcomes", kind: "outcome", title: "cache tool" });
			for (const r of [live, expired, stale, other]) await store.memory.put(r);
			const now = "2025-03-03T00:00:00.000Z";
			const ids = async (q: Partial<Parameters<Store["memory"]["match"]>[0]>) =>
				(await store.memory.match({ terms: ["cache"], scopes: PROJECT_A, now, ...q })).map((h) => h.row.id).sort();
			expect(await ids({})).toEqual([live.id, other.id].sort());
			expect(await ids({ includeStale: true })).toEqual([live.id, stale.id, other.id].sort());
			expect(await ids({ now: "2025-03-01T12:00:00.000Z" })).toEqual([live.id, expired.id, other.id].sort());
			expect(await ids({ namespaces: ["notes"] })).toEqual([live.id]);
			expect(await ids({ kind: "outcome" })).toEqual([other.id]);
			expect((await store.memory.list({ scopes: PROJECT_A, now, includeStale: true })).map((r) => r.id).sort()).toEqual([live.id, stale.id, other.id].sort());
		});

		it("lists newest first and bounds the list", async () => {
			const store = subject();
			const older = record({ updated_at: "2025-03-01T10:00:00.000Z" });
			const newer = record({ updated_at: "2025-03-05T10:00:00.000Z" });
			await store.memory.put(older);
			await store.memory.put(newer);
			expect((await store.memory.list({ scopes: PROJECT_A })).map((r) => r.id)).toEqual([newer.id, older.id]);
			expect((await store.memory.list({ scopes: PROJECT_A, limit: 1 })).map((r) => r.id)).toEqual([newer.id]);
			await expect(store.memory.list({ scopes: PROJECT_A, limit: 0 })).rejects.toThrow(/limit/);
		});

		it("marks records stale and back, and names records of the same title that are not stale", async () => {
			const store = subject();
			const first = record({ title: "release day" });
			const second = record({ title: "release day", namespace: "other" });
			await store.memory.put(first);
			await store.memory.put(second);
			expect((await store.memory.sameTitle({ scope: "project", scope_key: "/w/a", namespace: "notes", title: "release day" })).map((r) => r.id)).toEqual([first.id]);
			const changed = await store.memory.markStale([first.id, "missing"], true, "2025-04-01T00:00:00.000Z");
			expect(changed).toEqual([{ ...first, stale: true, updated_at: "2025-04-01T00:00:00.000Z" }]);
			expect(await store.memory.markStale([first.id], true, "2025-04-02T00:00:00.000Z")).toEqual([]);
			expect(await store.memory.sameTitle({ scope: "project", scope_key: "/w/a", namespace: "notes", title: "release day" })).toEqual([]);
			expect((await store.memory.markStale([first.id], false, "2025-04-03T00:00:00.000Z")).map((r) => r.stale)).toEqual([false]);
		});

		it("forgets a record: gone from get, list and the text index; its label went with it", async () => {
			const store = subject();
			const secret = record({ title: "stripe key", content: "sk_live_contract", label: SECRET_FILE });
			await store.memory.put(secret);
			expect(await store.memory.forget(secret.id)).toEqual(secret);
			expect(await store.memory.forget(secret.id)).toBeUndefined();
			expect(await store.memory.get(secret.id)).toBeUndefined();
			expect(await store.memory.match({ terms: ["stripe"], scopes: PROJECT_A })).toEqual([]);
			expect(await store.memory.list({ scopes: PROJECT_A })).toEqual([]);
		});

		it("hands ranking the same hits as match, in the same order, and completes them into the whole rows", async () => {
			const store = subject();
			const a = record({ title: "rotate certs quarterly", tags: ["certs"], label: UNTRUSTED_PAGE, metadata: { n: 1 } });
			const b = record({ title: "renew", content: "renew the certs before rotate day", expires_at: "2030-01-01T00:00:00.000Z" });
			const c = record({ title: "rotate keys", stale: true });
			for (const r of [a, b, c]) await store.memory.put(r);
			const query = { terms: ["rotate", "certs"], scopes: PROJECT_A, now: "2025-06-01T00:00:00.000Z" };
			const matched = await store.memory.match(query);
			const candidates = await store.memory.candidates(query);
			expect(candidates.map((x) => [x.id, x.relevance])).toEqual(matched.map((m) => [m.row.id, m.relevance]));
			expect(candidates.find((x) => x.id === a.id)).toMatchObject({ title: a.title, tags: a.tags, content: a.content, path_hints: a.path_hints, updated_at: a.updated_at, stale: false });
			expect(await store.memory.complete([...candidates].reverse())).toEqual(matched.map((m) => m.row).reverse());
			// A candidate the store did not hand out (one the embeddings found) is read by id; one forgotten since is left out.
			await store.memory.forget(b.id);
			const copies = candidates.filter((x) => x.id !== c.id).map((x) => ({ ...x }));
			expect(await store.memory.complete(copies)).toEqual([a]);
		});

		it("orders hits of equal relevance as they were written, and widens past a window the filters empty", async () => {
			const store = subject();
			const same = Array.from({ length: 6 }, () => record({ title: "tied zebra note", content: "same words", tags: [] }));
			for (const r of same) await store.memory.put(r);
			// More stale hits than any first window holds: the live one past them is still found.
			for (let i = 0; i < 40; i++) await store.memory.put(record({ title: "okapi okapi okapi", content: "okapi", tags: ["okapi"], stale: true }));
			const live = record({ title: "okapi", content: "one live", tags: [] });
			await store.memory.put(live);
			const tied = await store.memory.candidates({ terms: ["zebra"], scopes: PROJECT_A, limit: 4 });
			expect(tied.map((c) => c.id)).toEqual(same.slice(0, 4).map((r) => r.id));
			expect((await store.memory.candidates({ terms: ["okapi"], scopes: PROJECT_A, limit: 1 })).map((c) => c.id)).toEqual([live.id]);
		});

		it("commits a write with its audit record and event: superseded rows marked in the same commit, their ids in the record", async () => {
			const store = subject();
			const older = record({ title: "deploy day commit" });
			await store.memory.put(older);
			const newer = record({ title: "deploy day commit", created_at: "2025-03-02T10:00:00.000Z", updated_at: "2025-03-02T10:00:00.000Z" });
			const event = { kind: "effect.recorded", session: "s1", turn: 1, time: "2025-03-02T10:00:00.000Z", payload: { call_id: "call_1_1_1", effect: "memory.write", resource: "memory:project/notes", audit_seq: 0 } };
			const done = await store.memory.commitWrite(newer, undefined, { audit: { session: "s1", turn: 1, kind: "effect", call_id: "call_1_1_1", data: { effect: "memory.write", id: newer.id } }, events: [event] });
			expect(done.superseded).toEqual([older.id]);
			expect(done.audit.data).toEqual({ effect: "memory.write", id: newer.id, superseded: [older.id] });
			expect((await store.listAudit()).at(-1)).toEqual(done.audit);
			expect((await store.listEvents("s1")).at(-1)?.payload).toEqual({ ...event.payload, audit_seq: done.audit.seq });
			expect(await store.memory.get(newer.id)).toEqual(newer);
			expect((await store.memory.get(older.id))?.stale).toBe(true);
		});

		it("commits nothing of a write whose audit record is refused, and no audit record for a write refused", async () => {
			const store = subject();
			const before = (await store.listAudit()).length;
			const row = record({ title: "refused write" });
			const bad = { audit: { session: "s1", turn: 1, kind: "effect", data: [1] as unknown as Record<string, unknown> } };
			await expect(store.memory.commitWrite(row, undefined, bad)).rejects.toThrow(/audit data/);
			expect(await store.memory.get(row.id)).toBeUndefined();
			await store.memory.put(row);
			await expect(store.memory.commitWrite(row, undefined, { audit: { session: "s1", turn: 1, kind: "effect", data: { id: row.id } } })).rejects.toThrow(/already exists/);
			expect((await store.listAudit()).length).toBe(before);
		});

		it("forgets with its audit record, marking live again what the forgotten write superseded unless a newer live row holds the title", async () => {
			const store = subject();
			const audit = (id: string) => ({ audit: { session: "u1", turn: 1, kind: "effect", call_id: "undo_1_1", data: { effect: "memory.forget", id } } });
			const kept = record({ title: "ci notes forget", stale: true });
			const undone = record({ title: "ci notes forget" });
			await store.memory.put(kept);
			await store.memory.put(undone);
			const done = await store.memory.commitForget(undone.id, [kept.id, "missing"], "2025-05-01T00:00:00.000Z", audit(undone.id));
			expect(done.restored).toEqual([kept.id]);
			expect(done.audit.data).toEqual({ effect: "memory.forget", id: undone.id, restored: [kept.id] });
			expect(await store.memory.get(undone.id)).toBeUndefined();
			expect(await store.memory.get(kept.id)).toEqual({ ...kept, stale: false, updated_at: "2025-05-01T00:00:00.000Z" });
			// A later live record of the title outranks the one the undone write superseded: that stays stale.
			const old = record({ title: "ci notes later", stale: true });
			const mine = record({ title: "ci notes later", stale: true });
			const later = record({ title: "ci notes later" });
			for (const r of [old, mine, later]) await store.memory.put(r);
			expect((await store.memory.commitForget(mine.id, [old.id], "2025-05-02T00:00:00.000Z", audit(mine.id))).restored).toEqual([]);
			expect((await store.memory.get(old.id))?.stale).toBe(true);
			const before = (await store.listAudit()).length;
			await expect(store.memory.commitForget(mine.id, [], "2025-05-03T00:00:00.000Z", audit(mine.id))).rejects.toThrow(/does not exist/);
			expect((await store.listAudit()).length).toBe(before);
		});

		it("keeps an embedding with its model, and returns only the filter's", async () => {
			const store = subject();
			const withVector = record({ embedding_model: "e5" });
			const without = record();
			await store.memory.put(withVector, Float32Array.from([0.5, -1, 2]));
			await store.memory.put(without);
			expect((await store.memory.get(withVector.id))?.embedding_model).toBe("e5");
			const vectors = await store.memory.embeddings({ scopes: PROJECT_A });
			expect(vectors).toHaveLength(1);
			expect(vectors[0]!.id).toBe(withVector.id);
			expect([...vectors[0]!.vector]).toEqual([0.5, -1, 2]);
			expect(await store.memory.embeddings({ scopes: [{ scope: "session", scope_key: "s9" }] })).toEqual([]);
		});
	});
}
