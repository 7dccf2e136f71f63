import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { AnswerResult, AskAnswer, AskQueue, ElicitReply, PendingAsk } from "../../runtime/asks/ask-types.js";
import { Runtime } from "../../runtime/runtime.js";
import { SqliteFeed } from "../../store/sqlite-feed.js";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { createConsoleApp } from "./console-app.js";
import { loadAssets } from "./console-assets.js";
import { resolveRunAsConsole } from "./console-resolve.js";
import { SECURITY_HEADERS } from "./console-security.js";
import type { AuditPage, RunView } from "./console-types.js";
import { StoreWakeup } from "./store-wakeup.js";

/** The test's AskQueue: each ask answered exactly once, and who answered it kept. */
class MemoryAsks implements AskQueue {
	readonly answered: { id: string; answer: AskAnswer; by: string }[] = [];
	constructor(private readonly asks: PendingAsk[]) {}
	pending(): PendingAsk[] {
		return this.asks.filter((a) => !this.answered.some((x) => x.id === a.id) && !this.replied.some((x) => x.id === a.id));
	}
	answer(id: string, answer: AskAnswer, answeredBy: string): AnswerResult {
		if (!this.pending().some((a) => a.id === id)) return { ok: false, error: `ask ${id} is not pending` };
		this.answered.push({ id, answer, by: answeredBy });
		return { ok: true };
	}
	reply(id: string, reply: ElicitReply, answeredBy: string): AnswerResult {
		if (!this.pending().some((a) => a.id === id)) return { ok: false, error: `ask ${id} is not pending` };
		this.replied.push({ id, reply, by: answeredBy });
		return { ok: true };
	}
	readonly replied: { id: string; reply: ElicitReply; by: string }[] = [];
}

const ASK: PendingAsk = {
	id: "ask-1",
	session: "s-1",
	call_id: "call_1_1_1",
	kind: "approval",
	tool: "write_file",
	resource: "fs:notes.txt",
	arguments: { path: "notes.txt", content: "<script>alert(1)</script>" },
	reason: "mode default asks before a write",
	diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+<script>alert(1)</script>\n",
	always_rule: "write_file fs:notes.txt",
	created_at: "2026-01-01T00:00:00.000Z",
};

const PORT = 4711;
const ORIGIN = `http://127.0.0.1:${PORT}`;

let root: string;
let stateDir: string;
let store: SqliteStore;
let runtime: Runtime;
let feed: SqliteFeed;
let wakeup: StoreWakeup;
let asks: MemoryAsks;
let app: ReturnType<typeof createConsoleApp>;
let cookie: string;

beforeEach(async () => {
	root = mkdtempSync(join(tmpdir(), "warden-console-"));
	stateDir = join(root, "state");
	store = openSqliteStore(stateDir);
	runtime = await Runtime.open({ stateDir, readOnly: true });
	feed = SqliteFeed.open(stateDir);
	wakeup = new StoreWakeup(feed.walPath);
	asks = new MemoryAsks([ASK]);
	const assetDir = join(root, "page");
	mkdirSync(join(assetDir, "assets"), { recursive: true });
	writeFileSync(join(assetDir, "index.html"), "<!doctype html><title>console</title>");
	writeFileSync(join(assetDir, "assets", "app.js"), "console.log(1)");
	app = createConsoleApp({
		runtime,
		feed,
		wakeup,
		asks,
		resolveRun: (run) => resolveRunAsConsole(stateDir, run),
		assets: loadAssets(assetDir),
		binding: { host: "127.0.0.1", port: () => PORT },
		secrets: { token: "the-token", session: "the-session" },
	});
	cookie = `warden_console_${PORT}=the-session`;
});

afterEach(async () => {
	wakeup.close();
	feed.close();
	await runtime.close();
	await store.close();
	rmSync(root, { recursive: true, force: true });
});

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
	return Promise.resolve(app.request(`${ORIGIN}${path}`, { headers: { host: `127.0.0.1:${PORT}`, cookie, ...headers } }));
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
	return Promise.resolve(
		app.request(`${ORIGIN}${path}`, {
			method: "POST",
			headers: { host: `127.0.0.1:${PORT}`, cookie, origin: ORIGIN, "content-type": "application/json", ...headers },
			body: JSON.stringify(body),
		}),
	);
}

describe("the console's guard", () => {
	it("exchanges the right token for an HttpOnly SameSite=Strict cookie and redirects to a URL without it", async () => {
		const res = await get("/?token=the-token&x=1", { cookie: "" });
		expect(res.status).toBe(303);
		expect(res.headers.get("location")).toBe("/?x=1");
		const set = res.headers.get("set-cookie") ?? "";
		expect(set).toContain(`warden_console_${PORT}=the-session`);
		expect(set).toMatch(/HttpOnly/i);
		expect(set).toMatch(/SameSite=Strict/i);
		expect(set).not.toContain("the-token");
	});

	it("refuses a wrong token, a missing one and a wrong cookie with 401", async () => {
		expect((await get("/?token=guess", { cookie: "" })).status).toBe(401);
		expect((await get("/api/sessions", { cookie: "" })).status).toBe(401);
		expect((await get("/api/sessions", { cookie: `warden_console_${PORT}=guess` })).status).toBe(401);
	});

	it("refuses a Host that is not the console's own (DNS rebinding), even with the cookie", async () => {
		const res = await get("/api/sessions", { host: `attacker.example:${PORT}` });
		expect(res.status).toBe(421);
		expect(((await res.json()) as { error: string }).error).toContain("attacker.example");
		expect((await get("/api/sessions", { host: "127.0.0.1:9999" })).status).toBe(421);
		expect((await get("/api/sessions", { host: `localhost:${PORT}` })).status).toBe(200);
	});

	it("refuses a foreign Origin on any request, and a change without the console's own Origin", async () => {
		expect((await get("/api/sessions", { origin: "http://attacker.example" })).status).toBe(403);
		expect((await post("/api/asks/ask-1", { answer: "deny" }, { origin: "http://attacker.example" })).status).toBe(403);
		const noOrigin = await app.request(`${ORIGIN}/api/asks/ask-1`, {
			method: "POST",
			headers: { host: `127.0.0.1:${PORT}`, cookie, "content-type": "application/json" },
			body: JSON.stringify({ answer: "deny" }),
		});
		expect(noOrigin.status).toBe(403);
		expect((await post("/api/asks/ask-1", { answer: "deny" }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
		expect(asks.answered).toEqual([]);
	});

	it("sets the strict CSP and the other headers on answers and refusals alike", async () => {
		for (const res of [await get("/api/sessions"), await get("/api/sessions", { cookie: "" }), await get("/")]) {
			for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name)).toBe(value);
		}
		expect(SECURITY_HEADERS["Content-Security-Policy"]).not.toContain("unsafe-inline");
	});
});

describe("the console's API", () => {
	it("lists the pending asks and answers one exactly once, as the console", async () => {
		const pending = (await (await get("/api/asks")).json()) as PendingAsk[];
		expect(pending).toEqual([ASK]);
		const first = await post("/api/asks/ask-1", { answer: "allow_once" });
		expect(first.status).toBe(200);
		expect(asks.answered).toEqual([{ id: "ask-1", answer: "allow_once", by: "console" }]);
		const second = await post("/api/asks/ask-1", { answer: "deny" });
		expect(second.status).toBe(409);
		expect(((await second.json()) as { error: string }).error).toBe("ask ask-1 is not pending");
		expect(asks.answered).toHaveLength(1);
	});

	it("refuses an answer that is not one of the four, and a body that is not JSON, with one line", async () => {
		const bad = await post("/api/asks/ask-1", { answer: "yes" });
		expect(bad.status).toBe(400);
		expect(((await bad.json()) as { error: string }).error).toBe("answer must be one of allow_once, allow_always, deny, deny_always (or, for a request for input, accept, decline, cancel)");
		const text = await post("/api/asks/ask-1", "x", { "content-type": "text/plain" });
		expect(text.status).toBe(400);
		expect(asks.answered).toEqual([]);
	});

	it("hands an elicitation's answer (accept with its content, decline) to the queue's reply, as the console; a refusal is its one line", async () => {
		const accepted = await post("/api/asks/ask-1", { answer: "accept", content: { name: "Ada" } });
		expect(accepted.status).toBe(200);
		expect(asks.replied).toEqual([{ id: "ask-1", reply: { action: "accept", content: { name: "Ada" } }, by: "console" }]);
		const again = await post("/api/asks/ask-1", { answer: "decline" });
		expect(again.status).toBe(409);
		expect(((await again.json()) as { error: string }).error).toBe("ask ask-1 is not pending");
		expect(asks.replied).toHaveLength(1);
		expect(asks.answered).toEqual([]);
	});

	it("pages the audit chain newest first by keyset, every record exactly once", async () => {
		for (let i = 0; i < 120; i++) await store.appendAudit({ session: i % 2 === 0 ? "s-a" : "s-b", turn: 1, kind: "tool.proposed", data: { i } });
		const seen: number[] = [];
		let before: number | undefined;
		for (;;) {
			const page = (await (await get(`/api/audit?limit=50${before === undefined ? "" : `&before=${before}`}`)).json()) as AuditPage;
			seen.push(...page.records.map((r) => r.seq));
			if (page.next === undefined) break;
			before = page.next;
		}
		expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));
		const mine = (await (await get("/api/audit?limit=500&session=s-b")).json()) as AuditPage;
		expect(mine.records).toHaveLength(60);
		expect(mine.records.every((r) => r.session === "s-b")).toBe(true);
		expect((await get("/api/audit?before=-1")).status).toBe(400);
		expect(await (await get("/api/audit/verify")).json()).toEqual({ ok: true, checked: 120 });
	});

	it("names the first bad record when an audit record was edited behind the store's back", async () => {
		for (let i = 0; i < 8; i++) await store.appendAudit({ session: "s-a", turn: 1, kind: "tool.proposed", data: { i } });
		const db = new Database(join(stateDir, "warden.db"));
		db.exec("DROP TRIGGER audit_no_update");
		db.prepare(`UPDATE audit SET line = replace(line, '"data":{"i":4}', '"data":{"i":99}') WHERE seq = 5`).run();
		db.close();
		const result = (await (await get("/api/audit/verify")).json()) as { ok: boolean; firstBad?: { seq: number } };
		expect(result).toMatchObject({ ok: false, firstBad: { seq: 5 } });
	});

	it("lists runs needing attention first and resolves one, recorded as resolved by the console", async () => {
		const now = new Date().toISOString();
		for (const [id, session] of [["run-ok", "s-ok"], ["run-stuck", "s-stuck"]] as const) {
			await store.createSession({ id: session, workspace: root, mode: "default", model: "scripted", created_at: now });
			await store.createTaskRun({ id, session, state: "running", created_at: now, updated_at: id === "run-ok" ? "2999-01-01T00:00:00.000Z" : now });
			await store.recordRunCommand({ run: id, command_id: id, kind: "start", input: "go", created_at: now });
			await store.finishRunCommand(id, id, { outcome: "completed", state: "completed" });
		}
		await store.prepareOperation({ id: "op-1", session: "s-stuck", turn: 1, call_id: "call_1_1_1", kind: "shell.exec", resource: "shell:make deploy", intent: {}, reserved: {}, created_at: now });
		await store.markOperationDispatched("op-1");
		await store.settleOperation("op-1", { state: "unknown", outcome: { by: "the process died after dispatch" } });
		const runs = (await (await get("/api/runs")).json()) as RunView[];
		expect(runs.map((r) => r.id)).toEqual(["run-stuck", "run-ok"]);
		expect(runs[0]?.open).toContain("unknown effect shell.exec shell:make deploy");
		const res = await post("/api/runs/run-stuck/resolve", {});
		expect(res.status).toBe(200);
		const resolved = (await store.listAudit({ session: "s-stuck" })).find((r) => r.kind === "run.resolved");
		expect(resolved?.data).toMatchObject({ run: "run-stuck", operations: ["op-1"], resolved_by: "console", by: "console" });
		const again = await post("/api/runs/run-stuck/resolve", {});
		expect(again.status).toBe(409);
		expect(((await again.json()) as { error: string }).error).toBe("run run-stuck needs no attention");
	});

	it("serves the page's files by exact name, the page for a route, and 404 for anything else", async () => {
		expect(await (await get("/")).text()).toContain("<title>console</title>");
		const js = await get("/assets/app.js");
		expect(js.headers.get("content-type")).toContain("text/javascript");
		expect((await get("/assets/../../state/warden.db")).status).toBe(404);
		expect((await get("/api/nothing")).status).toBe(404);
	});
});
