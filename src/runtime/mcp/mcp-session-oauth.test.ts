import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type OAuthTestServers, startOAuthServers } from "../../providers/mcp/test-support/oauth-servers.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { callsStep, RecordingModel } from "../test-support/recording-model.js";
import { approveMcpTools, inspectMcpServers } from "./mcp-approvals.js";
import { loginMcpServer } from "./mcp-login.js";
import type { McpServerConfig } from "./mcp-server-config.js";

let t: TestRuntime | undefined;
let servers: OAuthTestServers | undefined;
afterEach(async () => {
	if (t) await closeTestRuntime(t);
	await servers?.close();
	t = undefined;
	servers = undefined;
});

async function browser(url: URL): Promise<void> {
	const answer = await fetch(url, { redirect: "manual" });
	await fetch(answer.headers.get("location")!);
}

/** Every byte the state dir holds outside the OAuth file: the database, its WAL, whatever else. */
function evidenceBytes(stateDir: string): string {
	return readdirSync(stateDir, { recursive: true, withFileTypes: true })
		.filter((e) => e.isFile() && !e.parentPath.endsWith("mcp-oauth"))
		.map((e) => readFileSync(join(e.parentPath, e.name)).toString("latin1"))
		.join("\n");
}

describe("an OAuth MCP server in a session", () => {
	it("is used with the stored token after `warden mcp login`, and the token appears in no evidence", async () => {
		t = await openTestRuntime("warden-mcp-oauth-");
		servers = await startOAuthServers();
		const workspace = realpathSync(t.workspace);
		const stateDir = t.runtime.stateDir;
		const remote: McpServerConfig = { name: "remote", transport: { type: "http", url: new URL(servers.mcpUrl).href, headers: {}, oauth: {} }, sandbox: false, source: "test" };

		const [before] = await inspectMcpServers({ store: t.runtime.store, workspace, home: homedir(), servers: [remote], stateDir });
		expect(before!.error).toContain("needs OAuth authorization: run `warden mcp login remote`");

		expect(await loginMcpServer({ stateDir, servers: [remote], server: "remote", authorize: browser })).toBe("authorized");
		await approveMcpTools({ store: t.runtime.store, workspace, home: homedir(), servers: [remote], stateDir, server: "remote", tools: ["add"], by: "test" });
		servers.expireAccess();

		const model = new RecordingModel([callsStep({ name: "mcp__remote__add", arguments: { a: 20, b: 22 } }), { text: "done", toolCalls: [] }]);
		const session = await t.runtime.openSession({ workspace, model, mcpServers: [remote], rules: { allow: ["mcp__remote__*"] } });
		await session.send("add");
		expect(JSON.stringify(model.requests[1]!.at(-1))).toContain("42");
		await session.end();

		// The session refreshed the token it was refused, and used the new one.
		expect(servers.grants).toEqual(["authorization_code", "refresh_token"]);
		expect(servers.authorizations.at(-1)).toBe(`Bearer ${servers.issued.at(-1)}`);
		const stored = readdirSync(join(stateDir, "mcp-oauth")).map((f) => JSON.parse(readFileSync(join(stateDir, "mcp-oauth", f), "utf8")) as { tokens: { refresh_token: string } });
		const refresh = stored[0]!.tokens.refresh_token;
		const bytes = evidenceBytes(stateDir);
		expect(bytes).not.toContain(refresh);
		expect(bytes.length).toBeGreaterThan(0);
		for (const token of servers.issued) expect(bytes).not.toContain(token);
		const audit = JSON.stringify(await t.runtime.listAudit({ session: session.id }));
		expect(audit).toContain("mcp:remote/add");
		for (const token of servers.issued) expect(audit).not.toContain(token);
	});
});
