import { describe, expect, it } from "vitest";
import { ceilingPermits, taskCeiling, tighterBudget } from "./task-ceiling.js";

describe("task ceilings", () => {
	it("hashes the same manifest the same whatever the order of keys, entries and rights", () => {
		const a = taskCeiling({
			effects: [
				{ resource: "fs:src/**", rights: ["write", "read"] },
				{ resource: "shell:git *", rights: ["exec"] },
			],
			sinks: ["terminal", "net:https://api.example.com:443"],
			budget: { tool_calls: 5, shell_ms: 1000 },
		});
		const b = taskCeiling({
			budget: { shell_ms: 1000, tool_calls: 5 },
			sinks: ["net:https://api.example.com:443", "terminal"],
			effects: [
				{ rights: ["exec"], resource: "shell:git *" },
				{ rights: ["read"], resource: "fs:src/**" },
				{ rights: ["write"], resource: "fs:src/**" },
			],
		});
		expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
		expect(b.hash).toBe(a.hash);
		expect(b.manifest).toEqual(a.manifest);
		expect(taskCeiling({ effects: [{ resource: "fs:src/**", rights: ["read"] }] }).hash).not.toBe(a.hash);
	});

	it("keeps omitted effects (no restriction) apart from an empty list (no effect at all)", () => {
		const open = taskCeiling({});
		const closed = taskCeiling({ effects: [] });
		expect(open.manifest.effects).toBeNull();
		expect(taskCeiling({ effects: null }).hash).toBe(open.hash);
		expect(closed.hash).not.toBe(open.hash);
		expect(ceilingPermits(open, { resource: "fs:a", right: "write" })).toBe(true);
		expect(ceilingPermits(closed, { resource: "fs:a", right: "read" })).toBe(false);
		expect(open.manifest).toEqual({ version: 1, effects: null, exclude: [], sinks: [], budget: {}, approval: "host" });
	});

	it("refuses malformed manifests with one line naming the field", () => {
		expect(() => taskCeiling({ effect: [] })).toThrow("ceiling.effect: unknown key (allowed: effects, exclude, sinks, budget, approval)");
		expect(() => taskCeiling({ effects: [{ resource: "src/**", rights: ["read"] }] })).toThrow(/ceiling.effects\[0\].resource: .*must start with fs:/);
		expect(() => taskCeiling({ effects: [{ resource: "fs:**", rights: ["fly"] }] })).toThrow('ceiling.effects[0].rights: unknown right "fly"');
		expect(() => taskCeiling({ budget: { tool_call: 1 } })).toThrow(/unknown counter "tool_call"/);
		expect(() => taskCeiling({ approval: "maybe" })).toThrow('ceiling.approval must be "host" or "deny"');
	});

	it("takes the smaller limit of each counter", () => {
		expect(tighterBudget({ tool_calls: 10, shell_ms: 5 }, { tool_calls: 3, bytes_read: 7 })).toEqual({ tool_calls: 3, shell_ms: 5, bytes_read: 7 });
		expect(tighterBudget(undefined, {})).toEqual({});
	});
});
