/**
 * The behaviour every Store backend must show. A backend's test file calls
 * runStoreContractTests with a factory for a fresh, empty store and the rules it opened it with
 * (the kernel's, or the store's test rules): the chain and label assertions are in their terms.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreRules } from "../store-rules.js";
import type { EventRow, FileLabelRow, LabelRow, Store } from "../store.js";
import { describeAskContract } from "./ask-contract-tests.js";
import { describeMemoryContract } from "./memory-contract-tests.js";
import { describeOperationContract } from "./operation-contract-tests.js";

export interface StoreUnderTest {
	store: Store;
	cleanup(): Promise<void>;
}

const HASH = /^[0-9a-f]{64}$/;

function session(id: string, createdAt: string) {
	return {
		id,
		workspace: `/work/${id}`,
		mode: "workspace-write",
		model: "scripted:test",
		created_at: createdAt,
	};
}

function sampleEvents(sessionId: string): EventRow[] {
	return [
		{
			kind: "session.started",
			session: sessionId,
			turn: 0,
			time: "2025-03-01T10:00:00.000Z",
			payload: {
				event_schema: "1.0",
				workspace: "/w",
				mode: "plan",
				model: "scripted:x",
				resumed: false,
			},
		},
		{
			kind: "turn.started",
			session: sessionId,
			turn: 1,
			time: "2025-03-01T10:00:01.000Z",
			payload: { input: "tidy up" },
		},
		{
			kind: "tool.proposed",
			session: sessionId,
			turn: 1,
			time: "2025-03-01T10:00:02.000Z",
			payload: {
				call_id: "c1",
				tool: "write_file",
				arguments: { path: "a.txt", content: "héllo\n" },
			},
		},
		{
			kind: "turn.completed",
			session: sessionId,
			turn: 1,
			time: "2025-03-01T10:00:03.000Z",
			payload: { status: "completed", text: "done", steps: 2 },
		},
	];
}

/** Source references a label keeps on a join, in the kernel's lattice and the test rules alike. */
const MAX_SOURCES = 16;

type SourceRow = LabelRow["sources"][number];

export function runStoreContractTests(name: string, rules: StoreRules, makeStore: () => Promise<StoreUnderTest>): void {
	describe(`Store contract: ${name}`, () => {
		let subject: StoreUnderTest;
		let store: Store;

		beforeEach(async () => {
			subject = await makeStore();
			store = subject.store;
		});

		afterEach(async () => {
			await subject.cleanup();
		});

		describe("deferred writes", () => {
			it("reads a deferred append back before any barrier, in order with the rest, and the barrier settles every one", async () => {
				const [first, second] = sampleEvents("s1");
				const written = [
					store.appendEvent(first!, { deferred: true }),
					store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: { n: 1 } }, { deferred: true }),
					store.appendMessage("s1", { role: "user", content: "hi" }, undefined, { deferred: true }),
				];
				await store.appendEvent(second!);
				expect((await store.listEvents("s1")).map((e) => e.kind)).toEqual([first!.kind, second!.kind]);
				expect((await store.listAudit({ session: "s1" })).map((r) => r.data.n)).toEqual([1]);
				expect(await store.listMessages("s1")).toHaveLength(1);
				await store.barrier();
				const [, record] = await Promise.all(written);
				expect((record as { seq: number }).seq).toBe(1);
				expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
			});

			it("a barrier with nothing asked for resolves", async () => {
				await store.barrier();
			});
		});

		describe("sessions", () => {
			it("creates a session as active with no turns", async () => {
				await store.createSession(session("s1", "2025-03-01T10:00:00.000Z"));
				expect(await store.getSession("s1")).toEqual({
					...session("s1", "2025-03-01T10:00:00.000Z"),
					status: "active",
					turns: 0,
				});
			});

			it("records a child session's parent session and call", async () => {
				await store.createSession(session("parent", "2025-03-01T10:00:00.000Z"));
				await store.createSession({ ...session("child", "2025-03-01T10:00:01.000Z"), parent_session: "parent", parent_call: "call_1_1_1" });
				expect(await store.getSession("child")).toMatchObject({ parent_session: "parent", parent_call: "call_1_1_1" });
				const top = await store.getSession("parent");
				expect(top?.parent_session).toBeUndefined();
				expect((await store.listSessions()).filter((s) => s.parent_session === "parent").map((s) => s.id)).toEqual(["child"]);
			});

			it("returns undefined for an unknown session", async () => {
				expect(await store.getSession("nope")).toBeUndefined();
			});

			it("refuses a duplicate session id", async () => {
				await store.createSession(session("dup", "2025-03-01T10:00:00.000Z"));
				await expect(store.createSession(session("dup", "2025-03-01T11:00:00.000Z"))).rejects.toThrow(/dup/);
			});

			it("counts turns one at a time", async () => {
				await store.createSession(session("s1", "2025-03-01T10:00:00.000Z"));
				expect(await store.nextTurn("s1")).toBe(1);
				expect(await store.nextTurn("s1")).toBe(2);
				expect(await store.nextTurn("s1")).toBe(3);
				expect((await store.getSession("s1"))?.turns).toBe(3);
			});

			it("refuses to count turns of an unknown session", async () => {
				await expect(store.nextTurn("ghost")).rejects.toThrow(/ghost/);
			});

			it("ends a session with a status and time", async () => {
				await store.createSession(session("s1", "2025-03-01T10:00:00.000Z"));
				await store.endSession("s1", "ok", "2025-03-01T10:05:00.000Z");
				const row = await store.getSession("s1");
				expect(row?.status).toBe("ok");
				expect(row?.ended_at).toBe("2025-03-01T10:05:00.000Z");
			});

			it("refuses to end an unknown session", async () => {
				await expect(store.endSession("ghost", "ok", "2025-03-01T10:05:00.000Z")).rejects.toThrow(/ghost/);
			});

			it("lists sessions newest first, with a limit", async () => {
				await store.createSession(session("old", "2025-01-01T00:00:00.000Z"));
				await store.createSession(session("new", "2025-03-01T00:00:00.000Z"));
				await store.createSession(session("mid", "2025-02-01T00:00:00.000Z"));
				expect((await store.listSessions()).map((s) => s.id)).toEqual(["new", "mid", "old"]);
				expect((await store.listSessions(2)).map((s) => s.id)).toEqual(["new", "mid"]);
			});
		});

		describe("events", () => {
			it("round-trips events in append order, per session", async () => {
				const mine = sampleEvents("s1");
				const theirs = sampleEvents("s2");
				for (let i = 0; i < mine.length; i++) {
					await store.appendEvent(mine[i]!);
					await store.appendEvent(theirs[i]!);
				}
				expect(await store.listEvents("s1")).toEqual(mine);
				expect(await store.listEvents("s2")).toEqual(theirs);
				expect(await store.listEvents("s3")).toEqual([]);
			});

			it("lists only the events past the first n of a session, for a reader that keeps its place", async () => {
				const mine = sampleEvents("s1");
				for (const e of mine) {
					await store.appendEvent(e);
					await store.appendEvent(sampleEvents("s2")[0]!);
				}
				expect(await store.listEvents("s1", 1)).toEqual(mine.slice(1));
				expect(await store.listEvents("s1", mine.length)).toEqual([]);
				expect(await store.listEvents("s1", 0)).toEqual(mine);
			});

			it("keeps append order even when event times are not increasing", async () => {
				const [a, b] = sampleEvents("s1");
				await store.appendEvent({ ...b!, time: "2025-03-01T12:00:00.000Z" });
				await store.appendEvent({ ...a!, time: "2025-03-01T09:00:00.000Z" });
				expect((await store.listEvents("s1")).map((e) => e.kind)).toEqual(["turn.started", "session.started"]);
			});
		});

		describe("messages", () => {
			it("round-trips messages in order with 1-based seq", async () => {
				const messages = [
					{ role: "user", content: "hi" },
					{
						role: "assistant",
						content: "",
						tool_calls: [{ id: "c1", name: "read", arguments: '{"p":"x"}' }],
					},
					{ role: "tool", tool_call_id: "c1", content: "file body" },
				];
				for (const m of messages) await store.appendMessage("s1", m);
				await store.appendMessage("s2", { role: "user", content: "other" });
				expect(await store.listMessages("s1")).toEqual(
					messages.map((message, i) => ({
						session: "s1",
						seq: i + 1,
						message,
					})),
				);
				expect(await store.listMessages("s2")).toEqual([
					{
						session: "s2",
						seq: 1,
						message: { role: "user", content: "other" },
					},
				]);
			});
		});

		describe("audit", () => {
			it("assigns seq, time and a hash chained from genesis", async () => {
				const first = await store.appendAudit({
					session: "s1",
					turn: 0,
					kind: "session.started",
					data: { mode: "plan" },
				});
				const second = await store.appendAudit({
					session: "s1",
					turn: 1,
					kind: "effect",
					call_id: "c1",
					data: { resource: "fs:a.txt", bytes: 5 },
				});
				expect(first.seq).toBe(1);
				expect(first.prev_hash).toBe(rules.chain.genesis);
				expect(first.hash).toMatch(HASH);
				expect(Number.isNaN(Date.parse(first.time))).toBe(false);
				expect(first.call_id).toBeUndefined();
				expect(second.seq).toBe(2);
				expect(second.prev_hash).toBe(first.hash);
				const { data, prev_hash: _prev, hash: _hash, ...fields } = second;
				expect(second.hash).toBe(rules.chain.link(first.hash, { ...fields, data: rules.chain.canonicalData(data) }).hash);
				expect(second.call_id).toBe("c1");
			});

			it("lists exactly what it appended, in chain order", async () => {
				const appended = [];
				for (let i = 0; i < 5; i++) {
					appended.push(
						await store.appendAudit({
							session: i % 2 ? "s2" : "s1",
							turn: i,
							kind: "permission.decided",
							call_id: `c${i}`,
							data: {
								decision: "allow",
								nested: { i, list: [1, "two", null] },
							},
						}),
					);
				}
				expect(await store.listAudit()).toEqual(appended);
			});

			it("filters by session and keeps the most recent records under a limit", async () => {
				for (let i = 0; i < 6; i++) {
					await store.appendAudit({
						session: i < 4 ? "s1" : "s2",
						turn: i,
						kind: "effect",
						data: { i },
					});
				}
				expect((await store.listAudit({ session: "s1" })).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
				expect((await store.listAudit({ session: "s2" })).map((r) => r.seq)).toEqual([5, 6]);
				expect((await store.listAudit({ limit: 2 })).map((r) => r.seq)).toEqual([5, 6]);
				expect((await store.listAudit({ session: "s1", limit: 3 })).map((r) => r.seq)).toEqual([2, 3, 4]);
				expect(await store.listAudit({ session: "none" })).toEqual([]);
			});

			it("drops undefined data fields before hashing, so the chain verifies after reading back", async () => {
				await store.appendAudit({
					session: "s1",
					turn: 1,
					kind: "tool.outcome",
					data: { a: 1, b: undefined },
				});
				const [record] = await store.listAudit();
				expect(record?.data).toEqual({ a: 1 });
				expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
			});

			it("reads in a snapshot what the listings read, and passes the read's result through", async () => {
				await store.createSession(session("s1", "2025-03-01T10:00:00.000Z"));
				for (const event of sampleEvents("s1")) await store.appendEvent(event);
				await store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: { n: 1 } });
				const seen = await store.snapshot((view) => ({
					sessions: view.listSessions(),
					events: view.listEvents("s1"),
					audit: view.listAudit({ session: "s1" }),
				}));
				expect(seen).toEqual({ sessions: await store.listSessions(), events: await store.listEvents("s1"), audit: await store.listAudit({ session: "s1" }) });
				expect(seen.events).toHaveLength(sampleEvents("s1").length);
				await expect(store.snapshot(() => 7)).resolves.toBe(7);
			});

			it("verifies an intact chain, and an empty one", async () => {
				expect(await store.verifyAudit()).toEqual({ ok: true, checked: 0 });
				for (let i = 0; i < 20; i++) {
					await store.appendAudit({
						session: "s1",
						turn: i,
						kind: "effect",
						data: { i, text: "x".repeat(i) },
					});
				}
				expect(await store.verifyAudit()).toEqual({ ok: true, checked: 20 });
			});

			it("refuses audit data that is not JSON-serializable", async () => {
				const cyclic: Record<string, unknown> = {};
				cyclic.self = cyclic;
				await expect(
					store.appendAudit({
						session: "s1",
						turn: 1,
						kind: "effect",
						data: cyclic,
					}),
				).rejects.toThrow(/not JSON-serializable/);
				expect(await store.listAudit()).toEqual([]);
			});
		});

		describe("approved rules", () => {
			const rule = (pattern: string, workspace = "/w/a") => ({
				tool: "shell",
				pattern,
				outcome: "allow" as const,
				workspace,
				created_at: "2025-03-01T10:00:00.000Z",
				created_by: "host",
				session: "s1",
			});

			it("assigns ids, lists oldest first, and filters by workspace", async () => {
				const first = await store.addApprovedRule(rule("npm test"));
				const second = await store.addApprovedRule(rule("git status", "/w/b"));
				expect(first).toEqual({ id: first.id, ...rule("npm test") });
				expect(second.id).toBeGreaterThan(first.id);
				expect((await store.listApprovedRules()).map((r) => r.pattern)).toEqual(["npm test", "git status"]);
				expect((await store.listApprovedRules({ workspace: "/w/b" })).map((r) => r.id)).toEqual([second.id]);
			});

			it("returns the existing active rule for an identical answer instead of a second one", async () => {
				const first = await store.addApprovedRule(rule("npm test"));
				const again = await store.addApprovedRule({ ...rule("npm test"), created_at: "2025-03-02T10:00:00.000Z", session: "s2" });
				expect(again).toEqual(first);
				const denied = await store.addApprovedRule({ ...rule("npm test"), outcome: "deny" });
				expect(denied.id).not.toBe(first.id);
				expect(await store.listApprovedRules()).toHaveLength(2);
			});

			it("revokes by marking, keeps the rule for listing, and refuses an unknown or second revocation", async () => {
				const kept = await store.addApprovedRule(rule("npm test"));
				const revoked = await store.addApprovedRule(rule("git status"));
				const result = await store.revokeApprovedRule(revoked.id, "2025-03-03T10:00:00.000Z", "cli");
				expect(result).toEqual({ ...revoked, revoked_at: "2025-03-03T10:00:00.000Z", revoked_by: "cli" });
				expect((await store.listApprovedRules()).map((r) => r.id)).toEqual([kept.id]);
				expect((await store.listApprovedRules({ includeRevoked: true })).map((r) => r.id)).toEqual([kept.id, revoked.id]);
				await expect(store.revokeApprovedRule(revoked.id, "2025-03-04T10:00:00.000Z", "cli")).rejects.toThrow(/already revoked/);
				await expect(store.revokeApprovedRule(9999, "2025-03-04T10:00:00.000Z", "cli")).rejects.toThrow(/no approved rule #9999/);
				// A revoked rule does not block granting the same answer again.
				const regranted = await store.addApprovedRule(rule("git status"));
				expect(regranted.id).not.toBe(revoked.id);
			});
		});
		describe("file labels", () => {
			const SHA_A = "a".repeat(64);
			const SHA_B = "b".repeat(64);
			const key = { workspace: "/w/a", path: "notes/out.md", sha256: SHA_A };
			const row = (label: LabelRow, over: Partial<FileLabelRow> = {}): FileLabelRow => ({
				...key,
				label,
				session: "s1",
				created_at: "2025-03-01T10:00:00.000Z",
				...over,
			});
			const envFile: SourceRow = { kind: "file", ref: ".env", sha256: SHA_B };
			const page: SourceRow = { kind: "url", ref: "https://example.com/" };

			it("returns the label recorded on exactly this content, and undefined before any", async () => {
				expect(await store.getFileLabel(key)).toBeUndefined();
				const internal: LabelRow = { sensitivity: "internal", integrity: "trusted", sources: [envFile] };
				await store.putFileLabel(row(internal));
				expect(await store.getFileLabel(key)).toEqual(internal);
			});

			it("joins a second label for the same content with the first instead of replacing it", async () => {
				await store.putFileLabel(row({ sensitivity: "secret", integrity: "trusted", sources: [envFile] }));
				// A later, lower label must not launder the first one away.
				await store.putFileLabel(row({ sensitivity: "public", integrity: "untrusted", sources: [page] }, { session: "s2", created_at: "2025-03-02T10:00:00.000Z" }));
				expect(await store.getFileLabel(key)).toEqual({ sensitivity: "secret", integrity: "untrusted", sources: [envFile, page] });
				// The same source again is not listed twice.
				await store.putFileLabel(row({ sensitivity: "public", integrity: "trusted", sources: [envFile] }));
				expect(await store.getFileLabel(key)).toEqual({ sensitivity: "secret", integrity: "untrusted", sources: [envFile, page] });
			});

			it("lists one workspace's labels by path and hash, and none of another's", async () => {
				const secret: LabelRow = { sensitivity: "secret", integrity: "trusted", sources: [envFile] };
				await store.putFileLabel(row(secret));
				await store.putFileLabel(row(secret, { path: "a.txt", sha256: SHA_B }));
				await store.putFileLabel(row(secret, { workspace: "/w/b" }));
				expect(await store.listFileLabels("/w/a")).toEqual([
					{ workspace: "/w/a", path: "a.txt", sha256: SHA_B, label: secret },
					{ ...key, label: secret },
				]);
				expect(await store.listFileLabels("/w/c")).toEqual([]);
			});

			it("misses on another hash, path or workspace", async () => {
				await store.putFileLabel(row({ sensitivity: "secret", integrity: "trusted", sources: [envFile] }));
				expect(await store.getFileLabel({ ...key, sha256: SHA_B })).toBeUndefined();
				expect(await store.getFileLabel({ ...key, path: "notes/other.md" })).toBeUndefined();
				expect(await store.getFileLabel({ ...key, path: "Notes/out.md" })).toBeUndefined();
				expect(await store.getFileLabel({ ...key, workspace: "/w/b" })).toBeUndefined();
				// A different key is its own record: putting there does not touch the first.
				await store.putFileLabel(row({ sensitivity: "public", integrity: "untrusted", sources: [page] }, { workspace: "/w/b" }));
				expect(await store.getFileLabel({ ...key, workspace: "/w/b" })).toEqual({ sensitivity: "public", integrity: "untrusted", sources: [page] });
				expect(await store.getFileLabel(key)).toEqual({ sensitivity: "secret", integrity: "trusted", sources: [envFile] });
			});

			it("round-trips a label exactly, with every source field and the omitted count", async () => {
				const sources: SourceRow[] = Array.from({ length: MAX_SOURCES }, (_, i) => ({ kind: "call", ref: `call_${i}` }));
				sources[0] = { kind: "file", ref: "dir/ünïcode \"quoted\".txt", sha256: SHA_B };
				const full: LabelRow = { sensitivity: "secret", integrity: "untrusted", sources, omitted: 7 };
				await store.putFileLabel(row(full));
				expect(await store.getFileLabel(key)).toEqual(full);
				const bare: LabelRow = { sensitivity: "public", integrity: "trusted", sources: [] };
				await store.putFileLabel(row(bare, { sha256: SHA_B }));
				const back = await store.getFileLabel({ ...key, sha256: SHA_B });
				expect(back).toEqual(bare);
				expect(back).not.toHaveProperty("omitted");
			});

			it("counts what a join overflowing the source list leaves out, as the rules' join does", async () => {
				const many = (prefix: string): SourceRow[] => Array.from({ length: MAX_SOURCES }, (_, i) => ({ kind: "call", ref: `${prefix}_${i}` }));
				const first: LabelRow = { sensitivity: "internal", integrity: "trusted", sources: many("a"), omitted: 2 };
				const second: LabelRow = { sensitivity: "internal", integrity: "trusted", sources: many("b"), omitted: 3 };
				await store.putFileLabel(row(first));
				await store.putFileLabel(row(second));
				const joined = await store.getFileLabel(key);
				expect(joined?.sources).toEqual(many("a"));
				// The store joins in its transaction with the rules it was given; the count is theirs, and never below what either side said plus the join's own overflow.
				expect(joined?.omitted).toBe(rules.labels.join(first, second).omitted);
				expect(joined?.omitted).toBeGreaterThanOrEqual(3 + MAX_SOURCES);
			});

			it("refuses a malformed label rather than storing what cannot be read back", async () => {
				const bad = { sensitivity: "top-secret", integrity: "trusted", sources: [] } as unknown as LabelRow;
				await expect(store.putFileLabel(row(bad))).rejects.toThrow(/notes\/out\.md.*malformed label \(sensitivity top-secret\)/);
				expect(await store.getFileLabel(key)).toBeUndefined();
			});
		});

		describeOperationContract(() => store);
		describeAskContract(() => store);
		describeMemoryContract(() => store);
	});
}
