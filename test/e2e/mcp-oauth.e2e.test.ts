import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startOAuthServers } from "../../src/providers/mcp/test-support/oauth-servers.js";
import { BIN, CACHE_HOME, CONFIG_HOME, expectValidTrace, makeFixture, runCli, runPlan, STATE_HOME } from "./cli-harness.js";

/** `warden mcp login`, with a browser that opens the URL the CLI prints and follows it back to the loopback redirect. */
function login(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, "mcp", "login", ...args], {
			env: { ...process.env, WARDEN_HOME: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		let opened = false;
		child.stdout.on("data", (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
			const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
			if (!url || opened) return;
			opened = true;
			void fetch(url, { redirect: "manual" }).then((answer) => fetch(answer.headers.get("location")!));
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code: code ?? -1, stdout, stderr });
		});
	});
}

describe("warden mcp login and an OAuth server in a run (e2e)", () => {
	it("a run fails closed before login; login stores the tokens 0600; the run then calls the tool, and no evidence holds a token", async () => {
		const servers = await startOAuthServers();
		try {
			const f = makeFixture({ "README.md": "hi\n" });
			const config = join(f.dir, "user.yaml");
			writeFileSync(config, `mcpServers:\n  remote:\n    url: ${servers.mcpUrl}\n    oauth: true\nrules:\n  allow: ["mcp__remote__*"]\n`);
			const at = ["--config", config, "--workspace", f.workspace, "--state-dir", f.stateDir];

			const before = await runCli(["mcp", "list", ...at]);
			expect(before.stdout).toContain("NOT STARTED: MCP server remote needs OAuth authorization: run `warden mcp login remote`");

			const done = await login(["remote", ...at]);
			expect(done.stderr).toContain("Open this URL to authorize Warden at remote");
			expect(done.code).toBe(0);
			expect(done.stdout).toMatch(/^remote: authorized; tokens stored in .*mcp-oauth \(mode 0600\)/);
			const [file] = readdirSync(join(f.stateDir, "mcp-oauth"));
			expect(statSync(join(f.stateDir, "mcp-oauth", file!)).mode & 0o777).toBe(0o600);

			expect((await runCli(["mcp", "approve", "remote", "add", ...at])).code).toBe(0);
			const run = await runPlan(f, [{ tool_calls: [{ name: "mcp__remote__add", arguments: { a: 1, b: 2 } }] }, { text: "done" }], ["--config", config]);
			expect(run.code).toBe(0);
			expectValidTrace(run.events);
			expect(run.events.some((e) => e.kind === "tool.completed" && e.payload.tool === "mcp__remote__add")).toBe(true);

			const evidence = readdirSync(f.stateDir, { recursive: true, withFileTypes: true })
				.filter((e) => e.isFile() && !e.parentPath.endsWith("mcp-oauth"))
				.map((e) => readFileSync(join(e.parentPath, e.name)).toString("latin1"))
				.join("\n");
			for (const token of servers.issued) {
				expect(evidence).not.toContain(token);
				expect(run.stdout).not.toContain(token);
			}

			const out = await runCli(["mcp", "logout", "remote", ...at]);
			expect(out.stdout).toBe("remote: stored tokens removed\n");
		} finally {
			await servers.close();
		}
	}, 120_000);
});
