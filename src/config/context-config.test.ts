import { describe, expect, it } from "vitest";
import { resolveConfig } from "./resolve-config.js";
import { configFixture } from "./test-support/config-fixture.js";

describe("context settings in config", () => {
	it("takes each of window, compact_at and reserve from the last layer that sets it", async () => {
		const s = configFixture({ user: "context:\n  window: 16000\n  compact_at: 0.7\n", project: "context:\n  compact_at: 0.6\n  reserve: 500\n" });
		expect((await resolveConfig({ workspace: s.workspace, env: s.env })).context).toEqual({ window: 16000, compactAt: 0.6, reserve: 500 });
	});

	it("is empty when no layer sets it", async () => {
		const s = configFixture({ user: "mode: read-only\n" });
		expect((await resolveConfig({ workspace: s.workspace, env: s.env })).context).toEqual({});
	});

	it.each([
		["context:\n  window: 0\n", "context.window must be at least 1"],
		["context:\n  compact_at: 1.5\n", "context.compact_at must be <= 1"],
		["context:\n  size: 3\n", "context.size is not a known key (known: window, compact_at, reserve)"],
	])("refuses %j in one line", async (user, message) => {
		const s = configFixture({ user });
		await expect(resolveConfig({ workspace: s.workspace, env: s.env })).rejects.toThrow(message);
	});
});
