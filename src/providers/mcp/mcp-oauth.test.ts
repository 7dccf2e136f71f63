import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpConnection } from "./mcp-connection.js";
import { forgetStoredAuth, oauthFile } from "./mcp-oauth.js";
import { mcpOAuthLogin } from "./mcp-oauth-login.js";
import type { McpHttpTransportSpec } from "./mcp-types.js";
import { type OAuthTestServers, startOAuthServers } from "./test-support/oauth-servers.js";

let dir: string;
let servers: OAuthTestServers;
let spec: McpHttpTransportSpec;
let file: string;

beforeEach(async () => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-oauth-")));
	servers = await startOAuthServers();
	spec = { type: "http", url: servers.mcpUrl, headers: {}, oauth: {} };
	file = oauthFile(join(dir, "state"), "remote", new URL(servers.mcpUrl).href);
});
afterEach(async () => {
	await servers.close();
	rmSync(dir, { recursive: true, force: true });
});

/** The person's browser: follows the authorization URL to the loopback redirect. */
async function browser(url: URL, before?: (redirect: URL) => Promise<void>): Promise<void> {
	const answer = await fetch(url, { redirect: "manual" });
	const back = new URL(answer.headers.get("location")!);
	await before?.(back);
	await fetch(back);
}

const connect = () => McpConnection.connect({ name: "remote", transport: spec, workspace: dir, oauthFile: file, requestTimeoutMs: 10_000 });

describe("MCP OAuth", () => {
	it("logs in with PKCE through a loopback redirect, keeps the tokens in a 0600 file, and a connection uses them", async () => {
		const shown: URL[] = [];
		const result = await mcpOAuthLogin({ server: "remote", transport: spec, file, authorize: (url) => {
				shown.push(url);
				return browser(url);
			},
		});
		expect(result).toBe("authorized");
		expect(shown[0]!.searchParams.get("code_challenge_method")).toBe("S256");
		expect(shown[0]!.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
		expect(servers.grants).toEqual(["authorization_code"]);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
		const stored = JSON.parse(readFileSync(file, "utf8")) as { tokens: { access_token: string } };
		expect(stored.tokens.access_token).toBe(servers.issued[0]);
		const connection = await connect();
		expect((await connection.listTools()).map((t) => t.name)).toEqual(["add"]);
		const sum = await connection.callTool("add", { a: 2, b: 3 }, { signal: new AbortController().signal, timeoutMs: 10_000 });
		expect(sum.content).toEqual([{ type: "text", text: "5" }]);
		expect(servers.authorizations.at(-1)).toBe(`Bearer ${servers.issued[0]}`);
		await connection.close();
		expect(await mcpOAuthLogin({ server: "remote", transport: spec, file, authorize: () => Promise.reject(new Error("not asked")) })).toBe("already_authorized");
	});

	it("refreshes an access token the server stopped taking, without asking anyone", async () => {
		await mcpOAuthLogin({ server: "remote", transport: spec, file, authorize: (url) => browser(url) });
		servers.expireAccess();
		const connection = await connect();
		expect((await connection.listTools()).map((t) => t.name)).toEqual(["add"]);
		expect(servers.grants).toEqual(["authorization_code", "refresh_token"]);
		expect(servers.authorizations.at(-1)).toBe(`Bearer ${servers.issued[1]}`);
		await connection.close();
	});

	it("a session does not start authorizing: without tokens, or when refreshing fails, it names the login command", async () => {
		await expect(connect()).rejects.toThrow("MCP server remote needs OAuth authorization: run `warden mcp login remote`");
		expect(servers.authorizations).toEqual([]);
		await mcpOAuthLogin({ server: "remote", transport: spec, file, authorize: (url) => browser(url) });
		servers.expireAccess();
		const stored = JSON.parse(readFileSync(file, "utf8")) as { tokens: Record<string, unknown> };
		const { refresh_token: _, ...withoutRefresh } = stored.tokens;
		writeFileSync(file, JSON.stringify({ ...stored, tokens: withoutRefresh }), { mode: 0o600 });
		await expect(connect()).rejects.toThrow(/needs OAuth authorization: run `warden mcp login remote`/);
		expect(forgetStoredAuth(file)).toBe(true);
		expect(forgetStoredAuth(file)).toBe(false);
	});

	it("ignores a redirect that does not bring back the state it sent (a forged callback)", async () => {
		const result = await mcpOAuthLogin({
			server: "remote",
			transport: spec,
			file,
			authorize: (url) =>
				browser(url, async (back) => {
					const forged = new URL(back);
					forged.searchParams.set("code", "attacker-code");
					forged.searchParams.set("state", "not-the-state");
					await fetch(forged);
				}),
		});
		expect(result).toBe("authorized");
		expect(servers.grants).toEqual(["authorization_code"]);
	});
});
