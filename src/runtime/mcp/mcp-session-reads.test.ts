import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import type { ModelRequest } from "../../models/provider.js";
import { EVERYTHING_SERVER, nodeServer, RESOURCES_SERVER } from "../../providers/mcp/test-support/mcp-servers.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { callsStep, type RecordingModel, recordingRequests } from "../test-support/recording-model.js";
import { approveMcpTools, inspectMcpServers } from "./mcp-approvals.js";
import type { McpServerConfig } from "./mcp-server-config.js";

let t: TestRuntime | undefined;
afterEach(async () => {
	if (t) await closeTestRuntime(t);
	t = undefined;
});

async function setup(files: Record<string, string> = {}) {
	t = await openTestRuntime("warden-mcp-reads-", { files });
	const workspace = realpathSync(t.workspace);
	const log = join(t.root, "notes.jsonl");
	const notes = (extra: Partial<McpServerConfig> = {}): McpServerConfig => ({ name: "notes", transport: nodeServer(RESOURCES_SERVER, [], workspace, { HOSTILE_LOG: log }), sandbox: false, source: "test", ...extra });
	const everything: McpServerConfig = { name: "everything", transport: nodeServer(EVERYTHING_SERVER, ["stdio"], workspace), sandbox: false, source: "test" };
	// What reached the server beyond its listings (which the host reads to review the definitions).
	const reads = () =>
		(existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { tool: string; arguments: Record<string, unknown> }) : []).filter(
			(r) => r.tool !== "resources" && r.tool !== "prompts",
		);
	const runtime = t.runtime;
	/** Pins what the server lists now (its tools, resources, templates and prompts), as `warden mcp approve <server>` does. */
	const approve = (config: McpServerConfig, tools?: string[]) => approveMcpTools({ store: runtime.store, workspace, home: workspace, servers: [config], server: config.name, by: "test", ...(tools ? { tools } : {}) });
	return { runtime, workspace, notes, everything, reads, approve };
}

const recording = recordingRequests;

const mcpNames = (request: ModelRequest) => (request.tools ?? []).map((tool) => tool.name).filter((n) => n.startsWith("mcp__"));
/** The text of the last tool result the model was sent. */
const lastResult = (model: RecordingModel, i: number) => JSON.stringify(model.requests[i]!.at(-1));

async function run(session: Awaited<ReturnType<TestRuntime["runtime"]["openSession"]>>): Promise<AnyWardenEvent[]> {
	const events: AnyWardenEvent[] = [];
	await session.send("go", { onEvent: (e) => events.push(e) });
	return events;
}

describe("MCP resources and prompts in a session", () => {
	it("server-everything's resources and prompts are governed read tools; each read is an mcp.call effect and its result untrusted", async () => {
		const { runtime, workspace, everything, approve } = await setup();
		// Its resources, templates and prompts only: its tools stay unapproved (not offered).
		const [listed] = await inspectMcpServers({ store: runtime.store, workspace, home: workspace, servers: [everything] });
		await approve(everything, (listed!.entries ?? []).map((e) => e.tool));
		const { model, requests } = recording([
			callsStep({ name: "mcp__everything__list_resources", arguments: {} }),
			callsStep({ name: "mcp__everything__read_resource", arguments: { uri: "demo://resource/static/document/features.md" } }),
			callsStep({ name: "mcp__everything__get_prompt", arguments: { name: "args-prompt", arguments: { city: "Oslo" } } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [everything], rules: { allow: ["mcp__everything__*"] } });
		await run(session);
		expect(mcpNames(requests[0]!)).toEqual(expect.arrayContaining(["mcp__everything__list_resources", "mcp__everything__read_resource", "mcp__everything__list_prompts", "mcp__everything__get_prompt"]));
		expect(lastResult(model, 1)).toContain("demo://resource/static/document/architecture.md");
		expect(lastResult(model, 2)).toContain("Features");
		expect(lastResult(model, 3)).toContain("Oslo");
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.filter((r) => r.kind === "effect").map((r) => r.data.resource)).toEqual([
			"mcp:everything/resources",
			"mcp:everything/resource:demo://resource/static/document/features.md",
			"mcp:everything/prompt:args-prompt",
		]);
		const servers = audit.find((r) => r.kind === "mcp.servers")!.data.servers as { reads_offered: string[] }[];
		expect(servers[0]!.reads_offered).toHaveLength(4);
		expect(session.contextLabel.integrity).toBe("untrusted");
		await session.end();
	});

	it("a read asks like web_fetch: with nobody to ask it does not reach the server", async () => {
		const { runtime, workspace, notes, reads } = await setup();
		const { model } = recording([callsStep({ name: "mcp__notes__read_resource", arguments: { uri: "notes://readme" } }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [notes()] });
		const events = await run(session);
		const decided = events.find((e) => e.kind === "permission.decided");
		expect(decided?.kind === "permission.decided" && decided.payload.decision).toBe("ask");
		expect(reads()).toEqual([]);
		await session.end();
	});

	it("a rule can name the URI: one resource is read, another denied", async () => {
		const { runtime, workspace, notes, reads, approve } = await setup();
		await approve(notes());
		const { model } = recording([
			callsStep({ name: "mcp__notes__read_resource", arguments: { uri: "notes://readme" } }),
			callsStep({ name: "mcp__notes__read_resource", arguments: { uri: "notes://deploy" } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [notes()], rules: { allow: ["mcp__notes__read_resource(notes://readme)"], deny: ["mcp__notes__read_resource(notes://deploy)"] } });
		await run(session);
		expect(reads().map((r) => r.tool)).toEqual(["resource:notes://readme"]);
		await session.end();
	});

	it("a listed resource whose description is poisoned reaches the model by name only", async () => {
		const { runtime, workspace, notes, approve } = await setup();
		await approve(notes());
		const { model } = recording([callsStep({ name: "mcp__notes__list_resources", arguments: {} }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [notes()], rules: { allow: ["mcp__notes__*"] } });
		await run(session);
		const seen = lastResult(model, 1);
		expect(seen).toContain("notes://weather");
		expect(seen).toContain("descriptions withheld");
		expect(seen).not.toContain("IMPORTANT");
		expect(seen).toContain("The project's readme.");
		await session.end();
	});

	it("a secret read into the context does not leave in a prompt's arguments", async () => {
		const { runtime, workspace, notes, reads, approve } = await setup({ ".env": "API_KEY=sk-live-0123456789abcdefghijklmnop\n" });
		await approve(notes(), ["prompt:summarize"]);
		const { model } = recording([
			callsStep({ name: "read_file", arguments: { path: ".env" } }),
			callsStep({ name: "mcp__notes__get_prompt", arguments: { name: "summarize", arguments: { topic: "API_KEY=sk-live-0123456789abcdefghijklmnop" } } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [notes()], rules: { allow: ["mcp__notes__*"] } });
		const events = await run(session);
		expect(events.filter((e) => e.kind === "flow.decided").map((e) => (e.kind === "flow.decided" ? e.payload : undefined))).toContainEqual(
			expect.objectContaining({ operation: "mcp.call", sink: "mcp:notes/prompt:summarize", decision: "deny" }),
		);
		expect(reads()).toEqual([]);
		await session.end();
	});

	it("a server whose listing fails for the review still opens; nothing it lists counts as approved, so its prompt is refused", async () => {
		const { runtime, workspace, notes, reads } = await setup();
		const broken = notes({ transport: { ...notes().transport, env: { ...(notes().transport as { env: Record<string, string> }).env, RESOURCES_LIST: "fail" } } as McpServerConfig["transport"] });
		const { model } = recording([callsStep({ name: "mcp__notes__get_prompt", arguments: { name: "summarize", arguments: { topic: "x" } } }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [broken], rules: { allow: ["mcp__notes__*"] } });
		await run(session);
		const servers = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "mcp.servers")!.data.servers as { entries_error?: string; reads_offered: string[] }[];
		expect(servers[0]!.entries_error).toMatch(/the index is corrupt/);
		expect(servers[0]!.reads_offered).toHaveLength(4);
		expect(lastResult(model, 1)).toContain("mcp.read refused mcp:notes/prompt:summarize: the definition of prompt:summarize (sha256");
		expect(reads()).toEqual([]);
		await session.end();
	});

	it("plan mode, a deny rule and exclude_tools take read tools away; a server without resources or prompts gets none", async () => {
		const { runtime, workspace, notes } = await setup();
		const cases: [Omit<Parameters<typeof runtime.openSession>[0], "model">, string[]][] = [
			[{ workspace, mode: "plan", mcpServers: [notes()] }, []],
			[{ workspace, mcpServers: [notes()], rules: { deny: ["mcp__notes__*_prompts", "mcp__notes__get_prompt"] } }, ["mcp__notes__list_resources", "mcp__notes__read_resource"]],
			[{ workspace, mcpServers: [notes({ excludeTools: ["*_resource*"] })] }, ["mcp__notes__list_prompts", "mcp__notes__get_prompt"]],
		];
		for (const [options, expected] of cases) {
			const { model, requests } = recording([{ text: "x", toolCalls: [] }]);
			const session = await runtime.openSession({ ...options, model });
			await run(session);
			expect(mcpNames(requests[0]!)).toEqual(expected);
			await session.end();
		}
	});
});
