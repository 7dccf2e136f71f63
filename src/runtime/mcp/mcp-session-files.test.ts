/**
 * A secret file read through @modelcontextprotocol/server-filesystem is as secret as one read with
 * read_file: the result carries the file's label (by the path its arguments name, a link's target
 * too), the value is redacted in the evidence, and a later send of it to a sink that clears
 * internal is refused.
 */
import { existsSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { FILESYSTEM_SERVER, HOSTILE_SERVER, nodeServer } from "../../providers/mcp/test-support/mcp-servers.js";
import { callsStep, recordingRequests } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { approveMcpTools } from "./mcp-approvals.js";
import type { McpServerConfig } from "./mcp-server-config.js";

// No shape a detector knows: only the file's label makes it secret.
const SECRET = "plumtree-orchard-velvet-93";

let t: TestRuntime | undefined;
afterEach(async () => {
	if (t) await closeTestRuntime(t);
	t = undefined;
});

async function setup() {
	t = await openTestRuntime("warden-mcp-files-", { files: { ".env": `GREETING_WORD=${SECRET}\n`, "README.md": "# app\n" } });
	const workspace = realpathSync(t.workspace);
	const log = join(t.root, "hostile.jsonl");
	const fs: McpServerConfig = { name: "fs", transport: nodeServer(FILESYSTEM_SERVER, [workspace], workspace), sandbox: false, source: "test" };
	const hostile: McpServerConfig = { name: "hostile", transport: nodeServer(HOSTILE_SERVER, [], workspace, { HOSTILE_PHASE: "approve", HOSTILE_LOG: log }), sandbox: false, source: "test" };
	for (const [config, tools] of [
		[fs, ["read_text_file", "read_multiple_files"]],
		[hostile, ["echo"]],
	] as const) {
		await approveMcpTools({ store: t.runtime.store, workspace, home: homedir(), servers: [config], server: config.name, by: "test", tools: [...tools] });
	}
	const sent = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
	return { runtime: t.runtime, workspace, servers: [fs, hostile], sent };
}

async function evidence(runtime: TestRuntime["runtime"], session: string): Promise<string> {
	return JSON.stringify([await runtime.listAudit({ session }), await runtime.sessionEvents(session)]);
}

describe("secret files through an MCP filesystem server", () => {
	for (const [what, args] of [
		["a relative path", { path: ".env" }],
		["an absolute path", { path: "<ws>/.env" }],
		["a link to it", { path: "config-link" }],
		["a list of paths", { paths: ["README.md", ".env"] }],
	] as const) {
		it(`labels the result secret by ${what}, redacts it in evidence, and refuses it at a sink that clears internal`, async () => {
			const { runtime, workspace, servers, sent } = await setup();
			symlinkSync(join(workspace, ".env"), join(workspace, "config-link"));
			const expanded = JSON.parse(JSON.stringify(args).replaceAll("<ws>", workspace)) as Record<string, unknown>;
			const tool = "paths" in args ? "mcp__fs__read_multiple_files" : "mcp__fs__read_text_file";
			const { model, requests } = recordingRequests([
				callsStep({ name: tool, arguments: expanded }),
				callsStep({ name: "mcp__hostile__echo", arguments: { text: SECRET } }),
				{ text: "done", toolCalls: [] },
			]);
			const session = await runtime.openSession({ workspace, model, mcpServers: servers, rules: { allow: ["mcp__fs__*", "mcp__hostile__*"] } });
			const events: AnyWardenEvent[] = [];
			await session.send("go", { onEvent: (e) => events.push(e) });
			// The server did read it: the model saw the content.
			expect(JSON.stringify(requests[1]!.messages)).toContain("GREETING_WORD=");
			expect(session.contextLabel.sensitivity).toBe("secret");
			const denied = events.find((e) => e.kind === "flow.decided" && e.payload.operation === "mcp.call" && e.payload.decision === "deny");
			expect(denied).toBeDefined();
			expect(sent()).toBe("");
			expect(await evidence(runtime, session.id)).not.toContain(SECRET);
			await session.end();
		});
	}

	it("a file that is not secret keeps the result internal", async () => {
		const { runtime, workspace, servers, sent } = await setup();
		const { model } = recordingRequests([callsStep({ name: "mcp__fs__read_text_file", arguments: { path: "README.md" } }), callsStep({ name: "mcp__hostile__echo", arguments: { text: "# app" } }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, mcpServers: servers, rules: { allow: ["mcp__fs__*", "mcp__hostile__*"] } });
		await session.send("go");
		expect(session.contextLabel.sensitivity).toBe("internal");
		expect(sent()).toContain("# app");
		await session.end();
	});
});
