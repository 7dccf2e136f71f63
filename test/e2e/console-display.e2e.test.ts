/**
 * The display rule on the console's page (real `warden console`, a `warden run` waiting in another
 * process, Chromium through playwright-core): the approvals page shows the ask's command spelled,
 * so decoding what it shows gives back exactly the command the decision read, and neither it, the
 * live feed, the audit browser nor the explain page draws a raw control, bidi or invisible
 * character from the payload.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../src/kernel/display/visible-text.js";
import { BIN, CACHE_HOME, CONFIG_HOME, type Fixture, makeFixture, runCli, STATE_HOME, writePlan } from "./cli-harness.js";
import { PAYLOAD, RAW_HIDDEN, SPELLED } from "./display-payload.js";
import { startWaitingRun } from "./waiting-run.js";

let fx: Fixture;
let browser: Browser;
let server: ChildProcess;
let url: string;

function startConsoleCli(stateDir: string): Promise<{ child: ChildProcess; url: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, "console", "--state-dir", stateDir, "--port", "0"], {
			env: { ...process.env, WARDEN_HOME: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let out = "";
		let err = "";
		child.stdout?.on("data", (d: Buffer) => {
			out += d.toString();
			const m = /warden console: (http:\/\/\S+)\n/.exec(out);
			if (m) resolve({ child, url: m[1] as string });
		});
		child.stderr?.on("data", (d: Buffer) => {
			err += d.toString();
		});
		child.on("close", (code) => reject(new Error(`warden console exited ${code}: ${err}`)));
	});
}

/** What the page draws as text, all of it. */
function pageText(page: Page): Promise<string> {
	return page.locator("main").evaluate((main) => main.textContent ?? "");
}

function expectNoRaw(text: string, what: string): void {
	const raw = RAW_HIDDEN.exec(text);
	expect(raw, `${what} drew a raw ${raw ? JSON.stringify(raw[0]) : ""}`).toBeNull();
}

beforeAll(async () => {
	fx = makeFixture();
	({ child: server, url } = await startConsoleCli(fx.stateDir));
	browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
}, 120_000);

afterAll(async () => {
	await browser?.close();
	server?.kill("SIGTERM");
});

describe("warden console: the display rule on the page", () => {
	it("the approvals page shows exactly the command that would run, spelled; feed, audit and explain draw nothing raw", async () => {
		const origin = new URL(url).origin;
		const context = await browser.newContext();
		const page = await context.newPage();
		await page.goto(url);
		await page.goto(`${origin}/#/approvals`);

		const plan = writePlan(fx, [{ text: `about to ${PAYLOAD}`, tool_calls: [{ name: "shell", arguments: { command: PAYLOAD } }] }, { text: `done ${PAYLOAD}` }]);
		const run = await startWaitingRun(fx, `task ${PAYLOAD}`, plan, ["--ask", "shell(echo *)", "--ask", "shell(touch *)"]);
		await expect.poll(() => page.locator("article.ask").count(), { timeout: 30_000 }).toBe(1);
		const command = (await page.getByTestId("ask-command").textContent()) ?? "";
		expectNoRaw(command, "the ask's command");
		for (const piece of SPELLED) expect(command).toContain(piece);
		expect(decodeVisibleText(command)).toBe(PAYLOAD);
		const resource = (await page.getByTestId("ask-resource").textContent()) ?? "";
		// The resource is the canonical form the decision read (the shell parser splits at the OSC's `;`), spelled.
		expect(resource).toContain("owned-title\\x07\\x1b]52");
		expectNoRaw(await pageText(page), "the approvals page");

		await page.locator("article.ask").getByRole("button", { name: "Deny", exact: true }).click();
		const events = await run.done;
		expect(existsSync(join(fx.workspace, "hidden-by-escape"))).toBe(false);
		expect(events.find((e) => e.kind === "ask.answered")?.payload).toMatchObject({ answer: "deny", answered_by: "console" });
		const session = events[0]?.session as string;

		await page.goto(`${origin}/#/feed?session=${session}`);
		await expect.poll(() => page.locator('tr[data-kind="turn.completed"]').count(), { timeout: 20_000 }).toBe(1);
		const feed = await pageText(page);
		expectNoRaw(feed, "the feed");
		expect(feed).toContain("input=task echo greeting\\x1b]0;owned-title\\x07");

		await page.goto(`${origin}/#/audit?session=${session}`);
		await expect.poll(() => page.locator("article.record").count(), { timeout: 20_000 }).toBeGreaterThan(3);
		const audit = await pageText(page);
		expectNoRaw(audit, "the audit page");
		expect(audit).toContain("\\u{202e}txt.exe\\u{200b}");

		const call = events.find((e) => e.kind === "tool.proposed");
		if (call?.kind !== "tool.proposed") throw new Error("the run proposed no call");
		await page.goto(`${origin}/#/explain?id=${call.payload.call_id}&session=${session}`);
		await expect.poll(() => page.getByTestId("explain-text").textContent(), { timeout: 20_000 }).toContain(call.payload.call_id);
		const explain = (await page.getByTestId("explain-text").textContent()) ?? "";
		expectNoRaw(explain, "the explain page");
		expect(explain).toContain("said: about to echo greeting\\x1b]0;owned-title\\x07");
		await context.close();

		// The page is drawn from the same evidence `warden audit list --json` gives exactly.
		const data = await runCli(["audit", "list", "--json", "--session", session, "--state-dir", fx.stateDir]);
		expect(data.stdout).toContain(JSON.stringify(PAYLOAD).slice(1, -1));
	}, 120_000);
});
