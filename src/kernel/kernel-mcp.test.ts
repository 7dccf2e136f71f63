import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpServerSet } from "../providers/mcp/mcp-server-set.js";
import { HOSTILE_SERVER, nodeServer } from "../providers/mcp/test-support/mcp-servers.js";
import { Authority } from "./authority/authority.js";
import { CapabilityDeniedError } from "./authority/authority-errors.js";
import { type GrantSpec, issueGrant } from "./authority/capability.js";
import { Budget } from "./budget/budget.js";
import type { EffectRecord } from "./effects.js";
import { createKernel } from "./kernel.js";
import { McpPrimitiveError } from "./kernel-mcp.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-kmcp-")));
const log = join(dir, "calls.jsonl");
let servers: McpServerSet;

beforeAll(async () => {
	servers = await McpServerSet.start([{ name: "hostile", workspace: dir, transport: nodeServer(HOSTILE_SERVER, [], dir, { HOSTILE_LOG: log }) }]);
});
afterAll(async () => {
	await servers.close();
	rmSync(dir, { recursive: true, force: true });
});

function kernelWith(specs: readonly GrantSpec[] | null, budget?: Budget, withServers = true) {
	const effects: EffectRecord[] = [];
	const authority = specs && new Authority({ grants: specs.map((s, i) => issueGrant(s, "host", "s", `g${i + 1}`)) }).forCall({ approved: false });
	const kernel = createKernel({
		workspace: dir,
		callId: "call-m",
		signal: new AbortController().signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		...(authority ? { authority } : {}),
		...(budget ? { budget } : {}),
		...(withServers ? { mcp: servers } : {}),
	});
	return { kernel, effects };
}

const calls = () => readFileSync(log, "utf8").trim().split("\n").filter(Boolean);

describe("mcp.call", () => {
	it("calls a tool a grant covers and records the call before returning", async () => {
		const { kernel, effects } = kernelWith([{ resource: "mcp:hostile/*", rights: ["exec"] }]);
		const out = await kernel.mcp.call({ server: "hostile", tool: "echo", arguments: { text: "ping" } });
		expect(out).toEqual({ content: [{ type: "text", text: "ping" }], isError: false, bytes: expect.any(Number), truncated: false });
		expect(effects).toHaveLength(1);
		expect(effects[0]).toMatchObject({ call_id: "call-m", effect: "mcp.call", resource: "mcp:hostile/echo", data: { server: "hostile", tool: "echo", outcome: "completed", is_error: false } });
		expect(effects[0]!.data.arguments_sha256).toMatch(/^[0-9a-f]{64}$/);
	});

	it("refuses without a grant, for another tool, and without an authority or servers, sending nothing", async () => {
		const before = calls().length;
		await expect(kernelWith([]).kernel.mcp.call({ server: "hostile", tool: "echo", arguments: {} })).rejects.toThrow("capability refused: exec on mcp:hostile/echo: no grant covers it");
		await expect(kernelWith([{ resource: "mcp:hostile/lookup", rights: ["exec"] }]).kernel.mcp.call({ server: "hostile", tool: "echo", arguments: {} })).rejects.toBeInstanceOf(CapabilityDeniedError);
		await expect(kernelWith([{ resource: "mcp:*", rights: ["exec"], effect: "deny" }, { resource: "mcp:*", rights: ["exec"] }]).kernel.mcp.call({ server: "hostile", tool: "echo", arguments: {} })).rejects.toBeInstanceOf(CapabilityDeniedError);
		await expect(kernelWith(null).kernel.mcp.call({ server: "hostile", tool: "echo", arguments: {} })).rejects.toBeInstanceOf(McpPrimitiveError);
		await expect(kernelWith([{ resource: "mcp:*", rights: ["exec"] }], undefined, false).kernel.mcp.call({ server: "hostile", tool: "echo", arguments: {} })).rejects.toThrow(/no MCP server is connected/);
		expect(calls().length).toBe(before);
	});

	it("keeps at most maxBytes of a huge result, charging what it kept", async () => {
		const budget = new Budget("session", { bytes_read: 100_000 });
		const { kernel, effects } = kernelWith([{ resource: "mcp:*", rights: ["exec"] }], budget);
		const out = await kernel.mcp.call({ server: "hostile", tool: "huge", arguments: {}, maxBytes: 4_096 });
		expect(out.truncated).toBe(true);
		expect(out.content).toEqual([{ type: "text", text: "x".repeat(4_096) }]);
		expect(out.bytes).toBeGreaterThan(3 * 1024 * 1024);
		expect(effects[0]!.data).toMatchObject({ truncated: true });
		expect(budget.usage().bytes_read).toEqual({ used: 4_096, limit: 100_000 });
		await expect(kernel.mcp.call({ server: "hostile", tool: "echo", arguments: {}, maxBytes: 100_000 })).rejects.toThrow(/bytes_read/);
	});

	it("a hang times out and the call's effect is recorded as unknown", async () => {
		const { kernel, effects } = kernelWith([{ resource: "mcp:*", rights: ["exec"] }]);
		await expect(kernel.mcp.call({ server: "hostile", tool: "hang", arguments: {}, timeoutMs: 200 })).rejects.toThrow(/did not answer tools\/call hang in time; whether it acted on the call is unknown/);
		expect(effects[0]!.data).toMatchObject({ outcome: "timed_out", response_bytes: 0 });
	});

	it("a server that crashes mid-call: the call reached it, its effect is recorded as unknown", async () => {
		const { kernel, effects } = kernelWith([{ resource: "mcp:*", rights: ["exec"] }]);
		await expect(kernel.mcp.call({ server: "hostile", tool: "crash", arguments: { text: "saved?" } })).rejects.toThrow(/went away during tools\/call crash/);
		expect(effects[0]!.data).toMatchObject({ outcome: "server_gone" });
		expect(calls().at(-1)).toContain("saved?");
	});
});
