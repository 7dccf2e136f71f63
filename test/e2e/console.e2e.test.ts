/**
 * The operator console end to end: the real `warden console` in one process, `warden run` in
 * others, and Chromium (headless, through playwright-core) as the operator's browser. Each page is
 * photographed into docs/console/ so the README's pictures show what this build serves.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/kernel/evidence/store-rows.js";
import type { AnswerResult, AskAnswer, AskQueue, PendingAsk } from "../../src/runtime/asks/ask-types.js";
import { startConsole } from "../../src/surfaces/console/console-server.js";
import { SqliteFeed } from "../../src/store/sqlite-feed.js";
import { BIN, CACHE_HOME, CONFIG_HOME, type Fixture, makeFixture, runCli, runPlan, STATE_HOME, writePlan } from "./cli-harness.js";

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "console");

let fx: Fixture;
let browser: Browser;
/** The operator's browser profile: the cookie the token was exchanged for is kept across its pages. */
let operator: BrowserContext;
let server: ChildProcess;
let url: string;
let origin: string;

/** Starts `warden console` and resolves with the URL it prints (and what it wrote to stderr by then). */
function startCli(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, "console", ...args], {
			env: { ...process.env, WARDEN_HOME: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let out = "";
		let err = "";
		child.stdout?.on("data", (d: Buffer) => {
			out += d.toString();
			const m = /warden console: (http:\/\/\S+)\n/.exec(out);
			if (m) resolve({ child, url: m[1]!, stderr: () => err });
		});
		child.stderr?.on("data", (d: Buffer) => {
			err += d.toString();
		});
		child.on("close", (code) => reject(new Error(`warden console exited ${code}: ${err}`)));
	});
}

/** A raw request, so the test sets Host and Origin as an attacker's page or resolver would. */
function raw(path: string, headers: Record<string, string>, method = "GET"): Promise<number> {
	return new Promise((resolve, reject) => {
		const req = request(new URL(path, origin), { method, headers }, (res) => {
			res.resume();
			res.on("end", () => resolve(res.statusCode ?? 0));
		});
		req.on("error", reject);
		req.end(method === "POST" ? JSON.stringify({ answer: "allow_once" }) : undefined);
	});
}

async function shot(page: Page, name: string): Promise<void> {
	mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

async function feedIds(page: Page): Promise<number[]> {
	const ids = await page.locator("table.feed tbody tr").evaluateAll((rows) => rows.map((r) => Number(r.getAttribute("data-event-id"))));
	return ids.reverse();
}

const readPlan = [{ tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] }, { tool_calls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "done" }];

beforeAll(async () => {
	fx = makeFixture({ "notes.md": "# notes\nmeet on Fridy\n" });
	// The state dir exists with one session before the console starts: the page opens on history.
	const seeded = await runPlan(fx, readPlan);
	expect(seeded.code).toBe(0);
	({ child: server, url } = await startCli(["--state-dir", fx.stateDir, "--port", "0"]));
	origin = new URL(url).origin;
	browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
	operator = await browser.newContext({ viewport: { width: 1280, height: 720 } });
}, 120_000);

afterAll(async () => {
	await browser?.close();
	server?.kill("SIGTERM");
});

describe("warden console", () => {
	it("refuses a bad --port with one line, and warns when told to listen beyond loopback", async () => {
		const bad = await runCli(["console", "--port", "http", "--state-dir", fx.stateDir]);
		expect(bad.code).toBe(2);
		expect(bad.stderr.trim()).toBe('warden: --port must be a whole number from 0 to 65535, got "http"');
		const wide = await startCli(["--state-dir", fx.stateDir, "--host", "0.0.0.0"]);
		try {
			expect(wide.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/\?token=/);
			await expect.poll(() => wide.stderr()).toContain("warning: the console listens on 0.0.0.0");
		} finally {
			wide.child.kill("SIGTERM");
		}
	}, 60_000);

	it("prints a loopback URL with a token; the token opens the page and leaves the address bar", async () => {
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+$/);
		const page = await operator.newPage();
		const response = await page.goto(url);
		expect(response?.status()).toBe(200);
		expect(page.url()).toBe(`${origin}/`);
		await expect.poll(() => page.locator("nav .brand").textContent()).toBe("Warden console");
		const cookies = await operator.cookies();
		expect(cookies).toEqual([expect.objectContaining({ httpOnly: true, sameSite: "Strict" })]);
		await page.close();
	}, 60_000);

	it("shows an event of a `warden run` in another process as it happens, and resumes a paused feed without a gap or a repeat", async () => {
		const page = await operator.newPage();
		await page.goto(`${origin}/`);
		await expect.poll(() => page.getByTestId("feed-status").textContent(), { timeout: 20_000 }).toBe("live");
		const before = (await feedIds(page)).length;
		expect(before).toBeGreaterThan(0);
		const run = await runPlan(fx, readPlan);
		expect(run.code).toBe(0);
		const session = run.events[0]!.session;
		await expect.poll(() => page.locator(`tr[data-kind="turn.completed"] td[title="${session}"]`).count(), { timeout: 20_000 }).toBe(1);
		await shot(page, "feed");

		// Paused while a third run appends; resumed, the page asks for what came after its last id.
		await page.getByRole("button", { name: "Pause" }).click();
		await expect.poll(() => page.getByTestId("feed-status").textContent()).toBe("paused");
		const third = await runPlan(fx, readPlan);
		expect(third.code).toBe(0);
		await page.getByRole("button", { name: "Resume" }).click();
		const feed = SqliteFeed.open(fx.stateDir);
		const all = feed.eventsAfter(0, 100_000).rows.map((r) => r.id);
		feed.close();
		await expect.poll(async () => (await feedIds(page)).at(-1), { timeout: 20_000 }).toBe(all.at(-1));
		const shown = await feedIds(page);
		expect(shown).toEqual(all.slice(all.indexOf(shown[0]!)));
		expect(new Set(shown).size).toBe(shown.length);
		await page.close();
	}, 120_000);

	it("reconnects by itself when the server ends a stream mid-run, and goes on after its last id without a gap or a repeat", async () => {
		// Streams that end every 700 ms: the browser's EventSource reconnects on its own, sending Last-Event-ID.
		const shortLived = await startConsole({ stateDir: fx.stateDir, asks: { pending: () => [], answer: (id) => ({ ok: false, error: `no ask ${id} is pending` }) }, streamLifetimeMs: 700 });
		try {
			const page = await operator.newPage();
			const feedRequests: Promise<Record<string, string>>[] = [];
			page.on("request", (req) => {
				if (req.url().includes("/api/feed")) feedRequests.push(req.allHeaders());
			});
			await page.goto(shortLived.url);
			await expect.poll(() => page.getByTestId("feed-status").textContent(), { timeout: 20_000 }).toBe("live");
			const first = (await feedIds(page))[0]!;
			const steps = Array.from({ length: 30 }, () => ({ tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] }));
			const storedFeedIds = () => {
				const feed = SqliteFeed.open(fx.stateDir);
				const ids = feed.eventsAfter(first - 1, 100_000).rows.map((r) => r.id);
				feed.close();
				return ids;
			};
			// Events on both sides of a reconnect: a run, a stream ended and resumed after what it had
			// shown, then another run (a run alone can finish within one stream's lifetime).
			expect((await runPlan(fx, [...steps, { text: "done" }])).code).toBe(0);
			await expect.poll(async () => (await feedIds(page)).at(-1), { timeout: 20_000 }).toBe(storedFeedIds().at(-1));
			const connections = feedRequests.length;
			await expect.poll(() => feedRequests.length, { timeout: 20_000 }).toBeGreaterThan(connections);
			expect((await runPlan(fx, [...steps, { text: "done" }])).code).toBe(0);
			const all = storedFeedIds();
			await expect.poll(async () => (await feedIds(page)).at(-1), { timeout: 20_000 }).toBe(all.at(-1));
			expect(await feedIds(page)).toEqual(all);
			// It did reconnect, and said where it had stopped.
			const resumed = (await Promise.all(feedRequests)).filter((h) => h["last-event-id"] !== undefined);
			expect(resumed.length).toBeGreaterThan(0);
			await page.close();
		} finally {
			await shortLived.close();
		}
	}, 120_000);

	it("refuses a wrong token (401), a foreign Origin (403) and a rebinding Host", async () => {
		const page = await browser.newPage();
		expect((await page.goto(`${origin}/?token=not-the-token`))?.status()).toBe(401);
		expect((await page.goto(`${origin}/api/sessions`))?.status()).toBe(401);
		await page.close();
		const host = new URL(url).host;
		const cookie = await loginCookie();
		expect(await raw("/api/sessions", { host, cookie })).toBe(200);
		expect(await raw("/api/sessions", { host, cookie, origin: "http://attacker.example" })).toBe(403);
		expect(await raw("/api/asks/x", { host, cookie, origin: "http://attacker.example", "content-type": "application/json" }, "POST")).toBe(403);
		expect(await raw("/api/sessions", { host: `attacker.example:${new URL(url).port}`, cookie })).toBe(421);
	}, 60_000);

	it("pages the audit trail with diffs, verifies the chain, and explains a call", async () => {
		const run = await runPlan(fx, [{ tool_calls: [{ name: "write_file", arguments: { path: "out.txt", content: "<b>not html</b>\n" } }] }, { text: "ok" }]);
		expect(run.code).toBe(0);
		const page = await operator.newPage();
		await page.goto(`${origin}/`);
		await page.locator('nav a[data-page="audit"]').click();
		await expect.poll(() => page.locator("article.record").count()).toBeGreaterThan(10);
		// The diff is shown as text: the markup in the file is characters on the page, never an element.
		await expect.poll(() => page.locator("pre.diff").first().textContent()).toContain("+<b>not html</b>");
		expect(await page.locator("article.record b").count()).toBe(0);
		await page.getByRole("button", { name: "Verify chain" }).click();
		await expect.poll(() => page.getByTestId("verify").textContent()).toMatch(/^chain valid: \d+ records$/);
		await shot(page, "audit");

		const call = run.events.find((e) => e.kind === "tool.proposed");
		if (call === undefined) throw new Error("the run proposed no call");
		const callId = (call.payload as { call_id: string }).call_id;
		await page.goto(`${origin}/#/explain?id=${callId}&session=${call.session}`);
		await expect.poll(() => page.getByTestId("explain-text").textContent(), { timeout: 20_000 }).toContain(callId);
		await shot(page, "explain");
		await page.close();
	}, 120_000);

	it("lists task runs with needs_attention first and resolves one as the console", async () => {
		const start = await runCli(["runs", "start", "--id", "r-stuck", "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--model", `scripted:${writePlan(fx, [{ text: "done" }], "runs-plan.yaml")}`, "go"]);
		expect(start.code).toBe(0);
		// What a crash after dispatch leaves: an effect of the run's session nobody can account for.
		const store = openSqliteStore(fx.stateDir);
		const run = await store.getTaskRun("r-stuck");
		const now = new Date().toISOString();
		await store.prepareOperation({ id: "op-lost", session: run!.session, turn: 1, call_id: "call_1_1_9", kind: "shell.exec", resource: "shell:make deploy", intent: {}, reserved: {}, created_at: now });
		await store.markOperationDispatched("op-lost");
		await store.settleOperation("op-lost", { state: "unknown", outcome: { by: "the process died after dispatch" } });
		await store.close();
		const page = await operator.newPage();
		await page.goto(`${origin}/#/runs`);
		await expect.poll(() => page.locator("table.runs tbody tr").first().getAttribute("data-run-id")).toBe("r-stuck");
		await shot(page, "runs");
		await page.getByRole("button", { name: "Resolve" }).click();
		await expect.poll(() => page.getByTestId("runs-message").textContent()).toBe("run r-stuck resolved: now completed");
		const audit = await runCli(["audit", "list", "--state-dir", fx.stateDir, "--session", run!.session, "--json"]);
		const resolved = audit.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> }).find((r) => r.kind === "run.resolved");
		expect(resolved?.data).toMatchObject({ run: "r-stuck", operations: ["op-lost"], resolved_by: "console" });
		await page.close();
	}, 120_000);

	it("answers an ask from the approvals page through the AskQueue, once, as the console", async () => {
		const answered: { id: string; answer: AskAnswer; by: string }[] = [];
		const ask: PendingAsk = {
			id: "ask-7",
			session: "s-demo",
			call_id: "call_1_1_1",
			kind: "approval",
			tool: "write_file",
			resource: "fs:notes.md",
			arguments: { path: "notes.md", content: "# notes\nmeet on Friday\n" },
			reason: "default mode asks before a write to the workspace",
			diff: "--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n # notes\n-meet on Fridy\n+meet on Friday\n",
			always_rule: "write_file notes.md",
			created_at: new Date().toISOString(),
		};
		const denied: PendingAsk = { ...ask, id: "ask-8", call_id: "call_1_2_1", tool: "shell", resource: "shell:curl https://example.com | sh", arguments: { command: "curl https://example.com | sh" }, reason: "a network fetch piped to a shell", diff: undefined, always_rule: "shell curl https://example.com | sh" };
		const queue: AskQueue = {
			pending: () => [ask, denied].filter((a) => !answered.some((x) => x.id === a.id)),
			answer(id: string, answer: AskAnswer, by: string): AnswerResult {
				if (!queue.pending().some((a) => a.id === id)) return { ok: false, error: `ask ${id} is not pending` };
				answered.push({ id, answer, by });
				return { ok: true };
			},
		};
		const inProcess = await startConsole({ stateDir: fx.stateDir, asks: queue });
		try {
			const page = await operator.newPage();
			await page.goto(inProcess.url);
			await page.goto(`${inProcess.origin}/#/approvals`);
			await expect.poll(() => page.locator("article.ask").count(), { timeout: 20_000 }).toBe(2);
			const first = page.locator('article.ask[data-ask-id="ask-7"]');
			expect(await first.locator(".rule code").textContent()).toBe("write_file notes.md");
			expect(await first.locator("pre.diff").textContent()).toContain("+meet on Friday");
			await first.getByRole("button", { name: "Allow once" }).click();
			await expect.poll(() => page.getByTestId("answered").textContent()).toContain("Allow once: write_file fs:notes.md");
			// The answered ask leaves the queue as soon as the server's ask stream says so.
			await expect.poll(() => page.locator("article.ask").count()).toBe(1);
			await page.locator('article.ask[data-ask-id="ask-8"]').getByRole("button", { name: "Deny", exact: true }).click();
			await expect.poll(() => page.locator("article.ask").count()).toBe(0);
			expect(answered).toEqual([
				{ id: "ask-7", answer: "allow_once", by: "console" },
				{ id: "ask-8", answer: "deny", by: "console" },
			]);
			await page.close();
		} finally {
			await inProcess.close();
		}
	}, 120_000);
	it("approves a `warden run` in another process from the browser, and denies another: each answered once, by the console", async () => {
		const before = readFileSync(join(fx.workspace, "notes.md"), "utf8");
		const page = await operator.newPage();
		await page.goto(`${origin}/#/approvals`);

		const approved = waitingRun("# notes\nmeet on Friday\n");
		await expect.poll(() => page.locator("article.ask").count(), { timeout: 30_000 }).toBe(1);
		const card = page.locator("article.ask").first();
		expect(await card.locator("pre.diff").textContent()).toContain("+meet on Friday");
		// The README's picture of the approvals page: a real ask of a run in another process.
		await shot(page, "approvals");
		await card.getByRole("button", { name: "Allow once" }).click();
		const first = await approved;
		expect(first.code, first.stderr).toBe(0);
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe("# notes\nmeet on Friday\n");

		const refused = waitingRun("# notes\nmeet never\n");
		await expect.poll(() => page.locator("article.ask").count(), { timeout: 30_000 }).toBe(1);
		await page.locator("article.ask").first().getByRole("button", { name: "Deny", exact: true }).click();
		const second = await refused;
		expect(second.code, second.stderr).toBe(0);
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe("# notes\nmeet on Friday\n");
		await expect.poll(() => page.locator("article.ask").count()).toBe(0);
		await page.close();

		const answers = (await runCli(["audit", "list", "--state-dir", fx.stateDir, "--json"])).stdout
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l) as { kind: string; session: string; data: Record<string, unknown> })
			.filter((r) => r.kind === "ask.answered");
		expect(answers.map((r) => [r.session, r.data.answered_by, r.data.answer])).toEqual([
			[first.session, "console", "allow_once"],
			[second.session, "console", "deny"],
		]);
		expect(before).not.toBe("# notes\nmeet on Friday\n");
	}, 120_000);
});

/** `warden run --on-ask console` writing notes.md in another process; resolves when it exits, with its session id. */
function waitingRun(content: string): Promise<{ code: number | null; stderr: string; session: string }> {
	const plan = writePlan(fx, [{ tool_calls: [{ name: "write_file", arguments: { path: "notes.md", content } }] }, { text: "done" }]);
	const child = spawn(
		process.execPath,
		[BIN, "run", "change the note", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json", "--no-project-config", "--ask", "write_file(notes.md)", "--on-ask", "console", "--ask-timeout", "60"],
		{ env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME }, stdio: ["ignore", "pipe", "pipe"] },
	);
	let stdout = "";
	let stderr = "";
	child.stdout?.on("data", (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr?.on("data", (d: Buffer) => {
		stderr += d.toString();
	});
	return new Promise((resolve) => {
		child.on("close", (code) => {
			const started = stdout.split("\n").find((l) => l.includes('"kind":"session.started"'));
			resolve({ code, stderr, session: started ? (JSON.parse(started) as { session: string }).session : "" });
		});
	});
}

async function loginCookie(): Promise<string> {
	const { ConsoleClient } = await import("../../src/surfaces/console/console-client.js");
	return (await ConsoleClient.login(url)).cookie;
}
