import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpServerSet } from "../providers/mcp/mcp-server-set.js";
import { EVERYTHING_SERVER, nodeServer, RESOURCES_SERVER } from "../providers/mcp/test-support/mcp-servers.js";
import { Authority } from "./authority/authority.js";
import { type GrantSpec, issueGrant } from "./authority/capability.js";
import { Budget } from "./budget/budget.js";
import type { EffectRecord } from "./effects.js";
import { createKernel } from "./kernel.js";
import type { McpRouter } from "./kernel-mcp.js";
import { mcpReadResource } from "./kernel-mcp-read.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-kmcpr-")));
const log = join(dir, "reads.jsonl");
let servers: McpServerSet;

beforeAll(async () => {
	servers = await McpServerSet.start([
		{ name: "everything", workspace: dir, transport: nodeServer(EVERYTHING_SERVER, ["stdio"], dir) },
		{ name: "notes", workspace: dir, transport: nodeServer(RESOURCES_SERVER, [], dir, { HOSTILE_LOG: log }) },
	]);
	expect(servers.failures).toEqual([]);
}, 30_000);
afterAll(async () => {
	await servers.close();
	rmSync(dir, { recursive: true, force: true });
});

function kernelWith(specs: readonly GrantSpec[], budget?: Budget, router: McpRouter = servers) {
	const effects: EffectRecord[] = [];
	const authority = new Authority({ grants: specs.map((s, i) => issueGrant(s, "host", "s", `g${i + 1}`)) }).forCall({ approved: false });
	const kernel = createKernel({
		workspace: dir,
		callId: "call-r",
		signal: new AbortController().signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		authority,
		mcp: router,
		...(budget ? { budget } : {}),
	});
	return { kernel, effects };
}

const logged = () => (existsSync(log) ? readFileSync(log, "utf8") : "").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { tool: string });
const READ_ALL: GrantSpec[] = [{ resource: "mcp:*", rights: ["read"] }];

describe("mcp.read", () => {
	it("names each request's resource", () => {
		expect(mcpReadResource("s", { method: "resources/list" })).toBe("mcp:s/resources");
		expect(mcpReadResource("s", { method: "resources/read", uri: "demo://a" })).toBe("mcp:s/resource:demo://a");
		expect(mcpReadResource("s", { method: "prompts/list" })).toBe("mcp:s/prompts");
		expect(mcpReadResource("s", { method: "prompts/get", name: "p", arguments: {} })).toBe("mcp:s/prompt:p");
	});

	it("lists, reads and gets from server-everything, recording each request as an mcp.call effect", async () => {
		const { kernel, effects } = kernelWith(READ_ALL);
		const listed = await kernel.mcp.read({ server: "everything", request: { method: "resources/list" } });
		const uris = listed.entries!.map((e) => e.uri ?? e.uriTemplate);
		expect(uris).toContain("demo://resource/static/document/architecture.md");
		expect(uris).toContain("demo://resource/dynamic/text/{resourceId}");
		const read = await kernel.mcp.read({ server: "everything", request: { method: "resources/read", uri: "demo://resource/static/document/architecture.md" } });
		expect(read.content![0]).toMatchObject({ type: "text", text: expect.stringContaining("Architecture") });
		const prompts = await kernel.mcp.read({ server: "everything", request: { method: "prompts/list" } });
		expect(prompts.entries!.find((p) => p.name === "args-prompt")!.arguments).toEqual([
			{ name: "city", description: "Name of the city", required: true },
			{ name: "state", required: false },
		]);
		const prompt = await kernel.mcp.read({ server: "everything", request: { method: "prompts/get", name: "args-prompt", arguments: { city: "Lyon" } } });
		expect(prompt.content![0]).toMatchObject({ type: "text", text: expect.stringMatching(/^\[user\] .*Lyon/) });
		expect(effects.map((e) => [e.effect, e.resource, e.data.method, e.data.outcome])).toEqual([
			["mcp.call", "mcp:everything/resources", "resources/list", "completed"],
			["mcp.call", "mcp:everything/resource:demo://resource/static/document/architecture.md", "resources/read", "completed"],
			["mcp.call", "mcp:everything/prompts", "prompts/list", "completed"],
			["mcp.call", "mcp:everything/prompt:args-prompt", "prompts/get", "completed"],
		]);
		// The prompt's arguments are in the record only as a digest.
		expect(JSON.stringify(effects[3]!.data)).not.toContain("Lyon");
	});

	it("needs read on the exact resource: a grant for one URI does not read another, and exec is not read", async () => {
		const before = logged().length;
		const one = kernelWith([{ resource: "mcp:notes/resource:notes://readme", rights: ["read"] }]).kernel;
		expect((await one.mcp.read({ server: "notes", request: { method: "resources/read", uri: "notes://readme" } })).content![0]).toMatchObject({ text: expect.stringContaining("Release checklist") });
		await expect(one.mcp.read({ server: "notes", request: { method: "resources/read", uri: "notes://deploy" } })).rejects.toThrow("capability refused: read on mcp:notes/resource:notes://deploy");
		await expect(kernelWith([{ resource: "mcp:*", rights: ["exec"] }]).kernel.mcp.read({ server: "notes", request: { method: "prompts/list" } })).rejects.toThrow("capability refused: read on mcp:notes/prompts");
		expect(logged().length).toBe(before + 1);
	});

	it("withholds the description of a listed entry flagged as instruction-like or hidden, and says so", async () => {
		const { kernel, effects } = kernelWith(READ_ALL);
		const out = await kernel.mcp.read({ server: "notes", request: { method: "resources/list" } });
		const weather = out.entries!.find((e) => e.uri === "notes://weather")!;
		expect(weather).toEqual({ name: "weather", uri: "notes://weather" });
		expect(out.entries!.find((e) => e.uri === "notes://readme")).toMatchObject({ description: "The project's readme." });
		expect(out.withheld).toEqual([{ name: "weather", flags: ["hidden-characters", "override", "markup", "reads-files", "sends-data"] }]);
		expect(effects[0]!.data.withheld).toEqual(out.withheld);
		expect(JSON.stringify(out.entries)).not.toContain("IMPORTANT");
	});

	it("charges what it kept to bytes_read and refuses past the budget", async () => {
		const budget = new Budget("session", { bytes_read: 300 });
		const { kernel } = kernelWith(READ_ALL, budget);
		const out = await kernel.mcp.read({ server: "notes", request: { method: "resources/read", uri: "notes://readme" }, maxBytes: 20 });
		expect(out.truncated).toBe(true);
		expect(out.content).toEqual([{ type: "text", text: "# notes\nRelease chec" }]);
		expect(budget.usage().bytes_read!.used).toBe(20);
		await expect(kernel.mcp.read({ server: "notes", request: { method: "resources/list" }, maxBytes: 1_000 })).rejects.toThrow(/bytes_read/);
	});

	it("a server's refusal is the call's failure, left unknown", async () => {
		const { kernel, effects } = kernelWith(READ_ALL);
		await expect(kernel.mcp.read({ server: "notes", request: { method: "prompts/get", name: "missing", arguments: {} } })).rejects.toThrow(/refused prompts\/get missing/);
		expect(effects[0]!.data).toMatchObject({ outcome: "failed", response_bytes: 0 });
	});

	describe("with the host's pins of entry definitions", () => {
		/** A router whose host approved only the entries named (by name). */
		const pinning = (approved: readonly string[]): McpRouter => ({
			callTool: (server, tool, args, options) => servers.callTool(server, tool, args, options),
			read: (server, request, options) => servers.read(server, request, options),
			unapproved: async (_server, _method, entries) => entries.map((e) => (approved.includes(e.name) ? undefined : `${e.name} is not approved`)),
		});
		const sent = () => logged().filter((l) => l.tool !== "resources" && l.tool !== "prompts").length;

		it("refuses a prompt request whose definition is not approved before it is sent, with no operation recorded", async () => {
			const before = sent();
			const { kernel, effects } = kernelWith(READ_ALL, undefined, pinning([]));
			await expect(kernel.mcp.read({ server: "notes", request: { method: "prompts/get", name: "summarize", arguments: { topic: "x" } } })).rejects.toThrow(
				"mcp.read refused mcp:notes/prompt:summarize: summarize is not approved; nothing was sent",
			);
			expect(effects).toEqual([]);
			expect(sent()).toBe(before);
		});

		it("holds a URI to the template it matches, and lets through a URI no listed entry defines", async () => {
			const { kernel } = kernelWith(READ_ALL, undefined, pinning(["readme"]));
			await expect(kernel.mcp.read({ server: "notes", request: { method: "resources/read", uri: "notes://day/2026-01-01" } })).rejects.toThrow(/day is not approved; nothing was sent/);
			const read = await kernel.mcp.read({ server: "notes", request: { method: "resources/read", uri: "notes://readme" } });
			expect(JSON.stringify(read.content)).toContain("Release checklist");
			// No listed resource or template defines it: the server answers for itself (here, that it has none).
			await expect(kernel.mcp.read({ server: "notes", request: { method: "resources/read", uri: "other://x" } })).rejects.toThrow(/no resource other:\/\/x/);
		});

		it("lists an unapproved entry by name only and says why", async () => {
			const { kernel } = kernelWith(READ_ALL, undefined, pinning(["readme"]));
			const listed = await kernel.mcp.read({ server: "notes", request: { method: "resources/list" } });
			expect(listed.entries?.find((e) => e.name === "readme")?.description).toBe("The project's readme.");
			expect(listed.entries?.find((e) => e.name === "deploy")).toEqual({ name: "deploy", uri: "notes://deploy" });
			expect(listed.unapproved.map((u) => u.name)).toEqual(["deploy", "weather", "day"]);
		});
	});
});
