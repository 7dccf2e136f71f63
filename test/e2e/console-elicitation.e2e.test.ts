/**
 * An MCP server's request for input reaches the person at the console: the real `warden console`
 * in one process, `warden run --on-ask console` in another whose server-everything asks for input
 * (its trigger-elicitation-request tool), and Chromium as the operator's browser. The page shows a
 * form for the fields the server asked for; content that does not fit is refused in one line with
 * the ask left open; what is sent reaches the server. A decline from `warden asks answer` reaches
 * it as a decline.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/kernel/evidence/store-rows.js";
import { EVERYTHING_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { askQueueOver } from "../../src/runtime/asks/ask-queue.js";
import { startConsole } from "../../src/surfaces/console/console-server.js";
import { MemoryAsks } from "../../src/store/ask-rows.js";
import { BIN, CACHE_HOME, CONFIG_HOME, type Fixture, makeFixture, runCli, STATE_HOME, writePlan } from "./cli-harness.js";

const TOOL = "trigger-elicitation-request";
const ENV = { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME };

let fx: Fixture;
let config: string;
let browser: Browser;
let server: ChildProcess;
let url: string;

function startConsoleCli(): Promise<{ child: ChildProcess; url: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, "console", "--state-dir", fx.stateDir, "--port", "0"], { env: ENV, stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		child.stdout?.on("data", (d: Buffer) => {
			out += d.toString();
			const m = /warden console: (http:\/\/\S+)\n/.exec(out);
			if (m) resolve({ child, url: m[1]! });
		});
		child.stderr?.on("data", (d: Buffer) => {
			err += d.toString();
		});
		child.on("close", (code) => reject(new Error(`warden console exited ${code}: ${err}`)));
	});
}

/** `warden run --on-ask console` calling the elicitation tool; resolves when it exits, with its session id. */
function elicitingRun(): Promise<{ code: number | null; stderr: string; session: string }> {
	const plan = writePlan(fx, [{ tool_calls: [{ name: `mcp__everything__${TOOL}`, arguments: {} }] }, { text: "done" }]);
	const child = spawn(
		process.execPath,
		[BIN, "run", "ask me", "--model", `scripted:${plan}`, "--config", config, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json", "--no-project-config", "--on-ask", "console", "--ask-timeout", "90"],
		{ env: ENV, stdio: ["ignore", "pipe", "pipe"] },
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

/** What the server answered the tool call with, as the model was given it. */
async function toolResult(session: string): Promise<string> {
	const store = openSqliteStore(fx.stateDir, { readOnly: true });
	try {
		return JSON.stringify((await store.listMessages(session)).map((m) => m.message));
	} finally {
		await store.close();
	}
}

async function auditOf(session: string): Promise<{ kind: string; data: Record<string, unknown> }[]> {
	const listed = await runCli(["audit", "list", "--state-dir", fx.stateDir, "--session", session, "--json"]);
	return listed.stdout
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> });
}

beforeAll(async () => {
	fx = makeFixture();
	config = join(fx.dir, "user.yaml");
	writeFileSync(config, `mcpServers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]\nrules:\n  allow: ["mcp__everything__*"]\n`);
	const approved = await runCli(["mcp", "approve", "everything", "--config", config, "--workspace", fx.workspace, "--state-dir", fx.stateDir]);
	expect(approved.code, approved.stderr).toBe(0);
	({ child: server, url } = await startConsoleCli());
	browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
}, 120_000);

afterAll(async () => {
	await browser?.close();
	server?.kill("SIGTERM");
});

describe("an MCP elicitation at the console", () => {
	it("the page shows the server's fields as a form; content that does not fit is refused in one line; what is sent reaches the server", async () => {
		const page = await (await browser.newContext()).newPage();
		await page.goto(url);
		await page.goto(`${new URL(url).origin}/#/approvals`);
		const run = elicitingRun();
		const card = page.locator("article.elicitation");
		await expect.poll(() => card.count(), { timeout: 60_000 }).toBe(1);
		expect(await card.getByTestId("elicitation-message").textContent()).toBe("Please provide inputs for the following fields:");
		expect(await card.locator('[data-field="name"] .required').count()).toBe(1);
		expect(await card.locator('[data-field="check"] input[type="checkbox"]').count()).toBe(1);
		expect(await card.locator('[data-field="integer"] input[type="number"]').inputValue()).toBe("42");
		expect(await card.locator('[data-field="untitledSingleSelectEnum"] select option').allTextContents()).toContain("Chandler");

		// Out of the server's range (1 to 100): refused by the console's server, the ask still open.
		await card.locator("#elicit-name").fill("Ada Lovelace");
		await card.locator("#elicit-integer").fill("500");
		await card.getByRole("button", { name: "Send" }).click();
		await expect.poll(() => card.locator("p.error").textContent(), { timeout: 20_000 }).toMatch(/the content does not fit what the server asked for: integer must be <= 100; nothing was sent, the ask is still open$/);
		expect(await card.count()).toBe(1);

		await card.locator("#elicit-integer").fill("7");
		await card.locator('[data-field="check"] input').check();
		await card.getByRole("button", { name: "Send" }).click();
		const done = await run;
		expect(done.code, done.stderr).toBe(0);
		await expect.poll(() => page.getByTestId("answered").textContent()).toContain("Sent: input for MCP server everything");
		const result = await toolResult(done.session);
		expect(result).toContain("Name: Ada Lovelace");
		expect(result).toContain("Favorite Integer: 7");
		expect(result).toContain("Agreed to terms: true");
		const audit = await auditOf(done.session);
		expect(audit.find((r) => r.kind === "ask.answered")?.data).toMatchObject({ kind: "elicitation", answer: "accept", answered_by: "console" });
		expect(audit.find((r) => r.kind === "mcp.elicitation")?.data).toMatchObject({ server: "everything", asked: true, action: "accept" });
		expect(JSON.stringify(audit)).not.toContain("Ada Lovelace");
		await page.close();
	}, 180_000);

	it("warden asks list shows the request; warden asks answer declines it, and the server is told so", async () => {
		const run = elicitingRun();
		let listed = "";
		await expect
			.poll(
				async () => {
					listed = (await runCli(["asks", "list", "--state-dir", fx.stateDir])).stdout;
					return listed;
				},
				{ timeout: 60_000, interval: 500 },
			)
			.toContain("elicitation from MCP server everything");
		expect(listed).toContain("asks: Please provide inputs for the following fields:");
		expect(listed).toMatch(/field name: string, required — String: Your full, legal name/);
		const id = /^(ask_\S+) {2}elicitation/m.exec(listed)?.[1];
		expect(id).toBeDefined();
		const wrong = await runCli(["asks", "answer", id!, "allow_once", "--state-dir", fx.stateDir]);
		expect(wrong.code).not.toBe(0);
		expect(wrong.stderr.trim()).toBe(`warden: ask ${id} is an MCP server's request for input: answer accept, decline, cancel`);
		const declined = await runCli(["asks", "answer", id!, "decline", "--state-dir", fx.stateDir]);
		expect(declined.code, declined.stderr).toBe(0);
		const done = await run;
		expect(done.code, done.stderr).toBe(0);
		expect(await toolResult(done.session)).toContain("User declined to provide the requested information.");
		const audit = await auditOf(done.session);
		expect(audit.find((r) => r.kind === "ask.answered")?.data).toMatchObject({ kind: "elicitation", answer: "decline", answered_by: "cli" });
	}, 180_000);

	it("warden asks answer accept --content sends fields from the command line, after refusing content that does not fit", async () => {
		const run = elicitingRun();
		let id: string | undefined;
		await expect
			.poll(
				async () => {
					id = /^(ask_\S+) {2}elicitation/m.exec((await runCli(["asks", "list", "--state-dir", fx.stateDir])).stdout)?.[1];
					return id;
				},
				{ timeout: 60_000, interval: 500 },
			)
			.toBeDefined();
		const noContent = await runCli(["asks", "answer", id!, "accept", "--state-dir", fx.stateDir]);
		expect(noContent.code).toBe(2);
		expect(noContent.stderr.trim()).toBe("warden: accept needs --content '<json object of the fields>' (or answer it in the console or at the terminal)");
		const unfit = await runCli(["asks", "answer", id!, "accept", "--content", '{"name": 7}', "--state-dir", fx.stateDir]);
		expect(unfit.code).not.toBe(0);
		expect(unfit.stderr.trim()).toBe(`warden: ask ${id}: the content does not fit what the server asked for: name must be string; nothing was sent, the ask is still open`);
		const sent = await runCli(["asks", "answer", id!, "accept", "--content", '{"name": "Grace Hopper", "integer": 9}', "--state-dir", fx.stateDir]);
		expect(sent.code, sent.stderr).toBe(0);
		expect(sent.stdout).toBe(`answered ${id}: accept (by cli)\n`);
		const done = await run;
		expect(done.code, done.stderr).toBe(0);
		const result = await toolResult(done.session);
		expect(result).toContain("Name: Grace Hopper");
		expect(result).toContain("Favorite Integer: 9");
	}, 180_000);

	it("draws every string the server wrote by the display rule: escapes are shown, never acted on; the typed values go as their types", async () => {
		const rows = new MemoryAsks();
		const message = "Your name?\u001b]0;owned\u0007\u001b[8m and your token\u202e";
		const schema = {
			type: "object",
			properties: { name: { type: "string", title: "Name\u001b[2J" }, age: { type: "integer", minimum: 0 }, pet: { type: "string", enum: ["cat\u200b", "dog"] } },
			required: ["name"],
		};
		rows.open({ id: "ask_hostile", session: "s-hostile", call_id: "elicitation:1", kind: "elicitation", body: { tool: "elicitation", resource: "mcp:notes", arguments: {}, reason: message, elicitation: { server: "no\u001b[31mtes", message, requestedSchema: schema } }, created_at: new Date().toISOString() });
		const inProcess = await startConsole({ stateDir: fx.stateDir, asks: askQueueOver(rows) });
		try {
			const page = await (await browser.newContext()).newPage();
			await page.goto(inProcess.url);
			await page.goto(`${inProcess.origin}/#/approvals`);
			const title = await page.title();
			const card = page.locator("article.elicitation");
			await expect.poll(() => card.count(), { timeout: 20_000 }).toBe(1);
			expect(await card.getByTestId("elicitation-message").textContent()).toBe("Your name?\\x1b]0;owned\\x07\\x1b[8m and your token\\u{202e}");
			expect(await card.locator("header code").first().textContent()).toBe("no\\x1b[31mtes");
			expect(await card.locator('[data-field="name"] .about').textContent()).toBe(" — Name\\x1b[2J");
			expect(await card.locator('[data-field="pet"] select option').allTextContents()).toEqual(["(none)", "cat\\u{200b}", "dog"]);
			expect(await page.title()).toBe(title);
			await card.locator("#elicit-name").fill("Ada");
			await card.locator("#elicit-age").fill("36");
			await card.locator("#elicit-pet").selectOption("dog");
			await card.getByRole("button", { name: "Send" }).click();
			await expect.poll(() => rows.get("ask_hostile")?.state, { timeout: 20_000 }).toBe("answered");
			expect(rows.get("ask_hostile")).toMatchObject({ answer: "accept", answered_by: "console", answer_content: { name: "Ada", age: 36, pet: "dog" } });
			await page.close();
		} finally {
			await inProcess.close();
		}
	}, 120_000);
});
