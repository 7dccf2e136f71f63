import { describe, expect, it } from "vitest";
import { MemoryMcpPins, type McpPinStore, type NewMcpPin } from "./mcp-pins.js";
import { SqliteStore } from "./sqlite-store.js";
import { tempStores } from "./test-support/temp-stores.js";
import { TEST_RULES } from "./test-support/test-rules.js";

const temp = tempStores("warden-mcp-pins-");

function pin(tool: string, digest: string, at = "2026-01-01T00:00:00.000Z"): NewMcpPin {
	return { workspace: "/w", server: "gh", tool, digest, definition: JSON.stringify({ name: tool }), flags: "[]", approved_at: at, approved_by: "host" };
}

const makers: [string, () => McpPinStore][] = [
	["sqlite", () => temp.track(SqliteStore.open(temp.tempDir(), { rules: TEST_RULES })).mcpPins],
	["memory", () => new MemoryMcpPins()],
];

describe.each(makers)("mcp pins (%s)", (_name, make) => {
	it("keeps one live pin per tool: a new approval replaces the old one, which stays as revoked", async () => {
		const pins = make();
		await pins.put(pin("a", "d1"));
		await pins.put(pin("b", "d2"));
		const again = await pins.put(pin("a", "d3", "2026-01-02T00:00:00.000Z"));
		expect(again.digest).toBe("d3");
		expect((await pins.list({ workspace: "/w" })).map((p) => [p.tool, p.digest])).toEqual([
			["b", "d2"],
			["a", "d3"],
		]);
		const all = await pins.list({ workspace: "/w", includeRevoked: true });
		expect(all.map((p) => [p.tool, p.digest, p.revoked_at])).toEqual([
			["a", "d1", "2026-01-02T00:00:00.000Z"],
			["b", "d2", null],
			["a", "d3", null],
		]);
	});

	it("revokes one tool or a whole server, and only live pins of that workspace", async () => {
		const pins = make();
		await pins.put(pin("a", "d1"));
		await pins.put(pin("b", "d2"));
		await pins.put({ ...pin("a", "d9"), workspace: "/other" });
		expect((await pins.revoke({ workspace: "/w", server: "gh", tool: "a" }, "2026-02-01T00:00:00.000Z", "cli")).map((p) => p.tool)).toEqual(["a"]);
		expect(await pins.revoke({ workspace: "/w", server: "gh", tool: "a" }, "2026-02-01T00:00:00.000Z", "cli")).toEqual([]);
		expect((await pins.revoke({ workspace: "/w", server: "gh" }, "2026-02-02T00:00:00.000Z", "cli")).map((p) => p.tool)).toEqual(["b"]);
		expect(await pins.list({ workspace: "/w" })).toEqual([]);
		expect((await pins.list({ workspace: "/other" })).map((p) => p.digest)).toEqual(["d9"]);
	});

	it("keeps one refusal per digest of a tool, per workspace, and lists them by server", async () => {
		const pins = make();
		const first = await pins.refuse({ workspace: "/w", server: "gh", tool: "a", digest: "d1", refused_at: "2026-03-01T00:00:00.000Z", refused_by: "acp" });
		const again = await pins.refuse({ workspace: "/w", server: "gh", tool: "a", digest: "d1", refused_at: "2026-03-02T00:00:00.000Z", refused_by: "tui" });
		expect(again).toEqual(first);
		await pins.refuse({ workspace: "/w", server: "gh", tool: "a", digest: "d2", refused_at: "2026-03-03T00:00:00.000Z", refused_by: "tui" });
		await pins.refuse({ workspace: "/w", server: "docs", tool: "b", digest: "d3", refused_at: "2026-03-03T00:00:00.000Z", refused_by: "tui" });
		await pins.refuse({ workspace: "/other", server: "gh", tool: "a", digest: "d1", refused_at: "2026-03-03T00:00:00.000Z", refused_by: "tui" });
		expect((await pins.refusals({ workspace: "/w", server: "gh" })).map((r) => [r.tool, r.digest, r.refused_by])).toEqual([
			["a", "d1", "acp"],
			["a", "d2", "tui"],
		]);
		expect((await pins.refusals({ workspace: "/w" })).map((r) => r.server)).toEqual(["gh", "gh", "docs"]);
		// A refusal withholds a definition; it is no pin. Approving that digest lifts its refusal, and only that one.
		expect(await pins.list({ workspace: "/w" })).toEqual([]);
		await pins.put(pin("a", "d2"));
		expect((await pins.refusals({ workspace: "/w", server: "gh" })).map((r) => r.digest)).toEqual(["d1"]);
	});
});
