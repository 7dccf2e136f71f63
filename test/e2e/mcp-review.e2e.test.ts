/**
 * MCP definitions reviewed through the real CLI: `warden mcp list` shows a server's resources,
 * templates and prompts with their pins and flags; a `warden run --on-ask console` asks about each
 * new definition as a durable ask that `warden asks answer` from another process answers; the one
 * allowed is pinned (as `warden mcp approve` would) and served in that run, the ones denied stay
 * withheld, and the next `warden mcp list` says so.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RESOURCES_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { BIN, CACHE_HOME, CONFIG_HOME, STATE_HOME, expectValidTrace, makeFixture, parseEvents, runCli, writePlan } from "./cli-harness.js";

describe("reviewing MCP resource and prompt definitions (e2e)", () => {
	it("lists entries with flags, asks about each in a run answered from another process, pins only the one allowed", async () => {
		const f = makeFixture({ "README.md": "hi\n" });
		const config = join(f.dir, "user.yaml");
		writeFileSync(config, `mcpServers:\n  notes:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(RESOURCES_SERVER)}]\n`);
		const at = ["--config", config, "--workspace", f.workspace, "--state-dir", f.stateDir];

		const list = await runCli(["mcp", "list", ...at]);
		expect(list.code, list.stderr).toBe(0);
		expect(list.stdout).toMatch(/new +resource:notes:\/\/readme {2}[0-9a-f]{12}\n/);
		expect(list.stdout).toMatch(/new +resource:notes:\/\/weather {2}[0-9a-f]{12} {2}FLAGGED: hidden-characters, override, markup, reads-files, sends-data/);
		expect(list.stdout).toMatch(/new +resource-template:notes:\/\/day\/\{date\}/);
		expect(list.stdout).toMatch(/new +prompt:summarize/);

		const plan = writePlan(f, [{ tool_calls: [{ name: "mcp__notes__get_prompt", arguments: { name: "summarize", arguments: { topic: "the release" } } }] }, { text: "done" }]);
		const child = spawn(process.execPath, [BIN, "run", "summarize", "--model", `scripted:${plan}`, ...at, "--json", "--no-project-config", "--allow", "mcp__notes__get_prompt", "--on-ask", "console"], {
			env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		child.stdout?.on("data", (d: Buffer) => {
			stdout += d.toString();
		});
		const killer = setTimeout(() => child.kill("SIGKILL"), 90_000);
		const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
		let running = true;
		void exited.then(() => {
			running = false;
		});
		const answered: string[] = [];
		// Answer each review as it opens: allow the prompt, deny the rest.
		while (running) {
			const pending = await runCli(["asks", "list", "--json", "--state-dir", f.stateDir]);
			const asks = pending.code === 0 && pending.stdout.trim() !== "" ? (JSON.parse(pending.stdout) as { id: string; resource: string; reason: string; diff?: string }[]) : [];
			for (const ask of asks) {
				expect(ask.diff).toContain("--- /dev/null");
				const allow = ask.resource === "mcp:notes/prompt:summarize";
				const result = await runCli(["asks", "answer", ask.id, allow ? "allow_once" : "deny", "--state-dir", f.stateDir]);
				if (result.code === 0) answered.push(`${ask.resource} ${allow ? "allow" : "deny"}${ask.reason.startsWith("FLAGGED") ? " flagged" : ""}`);
			}
			await new Promise((r) => setTimeout(r, 100));
		}
		clearTimeout(killer);
		expect(await exited).toBe(0);
		expect(answered).toEqual([
			"mcp:notes/resource:notes://readme deny",
			"mcp:notes/resource:notes://deploy deny",
			"mcp:notes/resource:notes://weather deny flagged",
			"mcp:notes/resource-template:notes://day/{date} deny",
			"mcp:notes/prompt:summarize allow",
		]);
		const events = parseEvents(stdout);
		expectValidTrace(events);
		expect(events.find((e) => e.kind === "tool.completed" && e.payload.tool === "mcp__notes__get_prompt")).toBeDefined();

		const after = await runCli(["mcp", "list", ...at]);
		expect(after.stdout).toMatch(/approved +prompt:summarize/);
		expect(after.stdout).toMatch(/new +resource:notes:\/\/readme/);
	}, 180_000);
});
