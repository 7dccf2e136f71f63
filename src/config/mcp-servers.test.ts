import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { mcpServerEnv } from "./mcp-servers.js";
import { resolveConfig } from "./resolve-config.js";
import { configFixture } from "./test-support/config-fixture.js";

/** `${NAME}`, the reference form an entry's env and headers take. */
const REF = (name: string) => `\${${name}}`;

const userBlock = `
mcpServers:
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: "\${GH_TOKEN}" }
  remote:
    url: https://mcp.example.com/mcp
    bearer_token_env: REMOTE_TOKEN
    exclude_tools: ["delete_*"]
`;

describe("mcpServers in the config layers", () => {
	it("reads the user's servers in the Claude Desktop shape, unsandboxed by default, env and token from named variables only", async () => {
		const f = configFixture({ user: userBlock });
		const env = { ...f.env, GH_TOKEN: "ghp_x", REMOTE_TOKEN: "tok", AWS_SECRET_ACCESS_KEY: "nope", PATH: "/usr/bin", LANG: "C.UTF-8" };
		const config = await resolveConfig({ workspace: f.workspace, env });
		expect(config.mcpServers).toEqual([
			{
				name: "github",
				sandbox: false,
				source: `user config ${f.userPath}`,
				transport: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], cwd: f.workspace, env: { PATH: "/usr/bin", HOME: f.env.HOME, LANG: "C.UTF-8", GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_x" } },
			},
			{ name: "remote", sandbox: false, source: `user config ${f.userPath}`, excludeTools: ["delete_*"], transport: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer tok" } } },
		]);
	});

	it("a project's servers (config and .mcp.json) are dropped, and noted, until the workspace is trusted; then sandboxed by default", async () => {
		const project = "mcpServers:\n  local: { command: node, args: [server.js] }\n";
		const untrusted = configFixture({ project });
		writeFileSync(join(untrusted.workspace, ".mcp.json"), JSON.stringify({ mcpServers: { fromjson: { command: "node", args: ["x.js"], sandbox: false } } }));
		const before = await resolveConfig({ workspace: untrusted.workspace, env: untrusted.env });
		expect(before.mcpServers).toEqual([]);
		expect(before.ignored.map((n) => n.item)).toEqual(["mcpServers.local", "mcpServers.fromjson"]);

		const trusted = configFixture({ user: "trusted_projects: [<ws>]\n", project });
		writeFileSync(join(trusted.workspace, ".mcp.json"), JSON.stringify({ mcpServers: { fromjson: { command: "node", args: ["x.js"], sandbox: false } } }));
		const after = await resolveConfig({ workspace: trusted.workspace, env: trusted.env });
		expect(after.mcpServers?.map((s) => [s.name, s.sandbox, s.source.split(" ")[0]])).toEqual([
			["local", true, "project"],
			["fromjson", false, ".mcp.json"],
		]);
	});

	it("a later layer replaces a server of the same name; disabled removes it", async () => {
		const f = configFixture({ user: "trusted_projects: [<ws>]\nmcpServers:\n  a: { command: one }\n  b: { command: two }\n", project: "mcpServers:\n  a: { command: three }\n  b: { command: two, disabled: true }\n" });
		const config = await resolveConfig({ workspace: f.workspace, env: f.env });
		expect(config.mcpServers?.map((s) => [s.name, s.transport.type === "stdio" && s.transport.command])).toEqual([["a", "three"]]);
	});

	it("bad entries fail with one line naming the file and the server", async () => {
		const cases: [string, RegExp][] = [
			["mcpServers:\n  x: { args: [a] }\n", /mcpServers\.x needs exactly one of command \(a stdio server\) or url/],
			["mcpServers:\n  x: { command: a, url: http://h/ }\n", /needs exactly one of command/],
			["mcpServers:\n  x: { url: ftp://h/ }\n", /mcpServers\.x\.url must be http: or https:, not ftp:/],
			["mcpServers:\n  x: { url: http://h/, bearer_token_env: MISSING_TOKEN }\n", /bearer_token_env names MISSING_TOKEN, which is not set/],
			[`mcpServers:\n  x: { command: a, env: { K: "${REF("NOT_SET_VAR")}" } }\n`, /mcpServers\.x\.env\.K names \$\{NOT_SET_VAR\}, which is not set/],
			["mcpServers:\n  x: { command: a, colour: red }\n", /mcpServers\.x\.colour is not a known key/],
			["mcpServers:\n  x: { command: a, oauth: true }\n", /headers, bearer_token_env and oauth are for a remote server/],
			["mcpServers:\n  x: { url: http://h/, oauth: true, headers: { Authorization: Bearer x } }\n", /oauth does not go with bearer_token_env or an Authorization header/],
			["mcpServers:\n  x: { url: http://h/, oauth: { scopes: all } }\n", /mcpServers\.x\.oauth/],
			["mcpServers:\n  'bad name': { command: a }\n", /mcpServers/],
			["mcpServers:\n  a__b: { command: a }\n", /mcpServers\.a__b: the server name "a__b" cannot name its tools unambiguously: it holds "__", the separator/],
			["mcpServers:\n  a_: { command: a }\n", /mcpServers\.a_: the server name "a_" cannot name its tools unambiguously: it ends in "_"/],
		];
		for (const [user, error] of cases) {
			const f = configFixture({ user });
			const attempt = resolveConfig({ workspace: f.workspace, env: f.env });
			await expect(attempt).rejects.toBeInstanceOf(ConfigError);
			await expect(resolveConfig({ workspace: f.workspace, env: f.env })).rejects.toThrow(error);
		}
	});

	it("oauth: true or { scope, client_id } on a remote server reaches its transport", async () => {
		const f = configFixture({ user: "mcpServers:\n  a: { url: http://h/mcp, oauth: true }\n  b: { url: http://h/mcp, oauth: { scope: read, client_id: warden-cli } }\n  c: { url: http://h/mcp, oauth: false }\n" });
		const config = await resolveConfig({ workspace: f.workspace, env: f.env });
		expect(config.mcpServers?.map((s) => s.transport.type !== "stdio" && s.transport.oauth)).toEqual([{}, { scope: "read", clientId: "warden-cli" }, undefined]);
	});

	it("a bad .mcp.json is a one-line error naming it", async () => {
		const f = configFixture({});
		writeFileSync(join(f.workspace, ".mcp.json"), "{ not json");
		await expect(resolveConfig({ workspace: f.workspace, env: f.env })).rejects.toThrow(/\.mcp\.json: not valid JSON/);
	});

	it("the base environment never carries a variable named like a secret, only what the entry names", () => {
		const env = mcpServerEnv({ env: { API_TOKEN: REF("MY_TOKEN") } }, { PATH: "/bin", MY_TOKEN: "t", GITHUB_TOKEN: "g", OPENAI_API_KEY: "k" }, "test");
		expect(env).toEqual({ PATH: "/bin", API_TOKEN: "t" });
	});
});
