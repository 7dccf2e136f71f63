import { describe, expect, it } from "vitest";
import { mergeCeilings, scopesWithin } from "./ceiling-merge.js";
import { ConfigError } from "./config-error.js";
import { resolveConfig } from "./resolve-config.js";
import { configFixture } from "./test-support/config-fixture.js";

const setup = (files: { user?: string; project?: string }) => configFixture(files, "warden-config-authority-");

const USER_GRANTS = ["grants:", "  - { id: src, resource: 'fs:src/**', rights: [read, write] }", "  - { resource: 'shell:git *', rights: [exec], uses: 3 }"].join("\n");

describe("config: grants", () => {
	it("the user's grants are passed on with their source", async () => {
		const s = setup({ user: USER_GRANTS });
		const config = await resolveConfig({ workspace: s.workspace, env: s.env });
		expect(config.grants?.value.map((g) => g.resource)).toEqual(["fs:src/**", "shell:git *"]);
		expect(config.grants?.sources).toEqual([`user config ${s.userPath}`]);
	});

	it("an untrusted project cannot add grants: each is ignored and reported", async () => {
		const s = setup({ user: USER_GRANTS, project: "grants:\n  - { resource: 'fs:**', rights: [read, write, delete] }\n" });
		const config = await resolveConfig({ workspace: s.workspace, env: s.env });
		expect(config.grants?.value).toHaveLength(2);
		expect(config.ignored).toEqual([
			{ item: "grants[0] fs:**", source: `project config ${s.projectPath}`, why: expect.stringMatching(/^grants from a project add authority and need trust/) },
		]);
	});

	it("a trusted project's grants join the user's", async () => {
		const s = setup({ user: `${USER_GRANTS}\ntrusted_projects: ['<ws>']\n`, project: "grants:\n  - { id: docs, resource: 'fs:docs/**', rights: [read] }\n" });
		const config = await resolveConfig({ workspace: s.workspace, env: s.env });
		expect(config.grants?.value.map((g) => g.id ?? g.resource)).toEqual(["src", "shell:git *", "docs"]);
		expect(config.ignored).toEqual([]);
	});

	it("a malformed grant fails with the file and field named", async () => {
		const bad = setup({ user: "grants:\n  - { resource: 'fs:src/**', rights: [read], expires_at: 'soon' }\n" });
		await expect(resolveConfig({ workspace: bad.workspace, env: bad.env })).rejects.toThrow(
			new ConfigError(`config ${bad.userPath}: grants[0].expires_at must be an ISO-8601 time`),
		);
		const unknown = setup({ user: "grants:\n  - { resource: 'fs:src/**', rights: [fly] }\n" });
		await expect(resolveConfig({ workspace: unknown.workspace, env: unknown.env })).rejects.toThrow(/grants\[0\]\.rights\[0\] must be one of read, write/);
	});
});

describe("config: ceilings", () => {
	it("a project ceiling within the user's replaces its effects; excludes, budget and approval add", async () => {
		const s = setup({
			user: "ceiling:\n  effects: [{ resource: 'fs:**', rights: [read, write] }]\n  budget: { tool_calls: 20 }\n",
			project: "ceiling:\n  effects: [{ resource: 'fs:src/**', rights: [read] }]\n  exclude: [{ resource: 'fs:src/secret/**', rights: [read] }]\n  budget: { tool_calls: 50, shell_ms: 1000 }\n  approval: deny\n",
		});
		const config = await resolveConfig({ workspace: s.workspace, env: s.env });
		expect(config.ceiling?.value).toEqual({
			effects: [{ resource: "fs:src/**", rights: ["read"] }],
			exclude: [{ resource: "fs:src/secret/**", rights: ["read"] }],
			budget: { tool_calls: 20, shell_ms: 1000 },
			approval: "deny",
		});
		expect(config.ceiling?.sources).toEqual([`user config ${s.userPath}`, `project config ${s.projectPath}`]);
		expect(config.ignored).toEqual([]);
	});

	it("project effects not provably within the user's are ignored and reported; the user's stay", async () => {
		const s = setup({
			user: "ceiling:\n  effects: [{ resource: 'fs:src/**', rights: [read] }]\n",
			project: "ceiling:\n  effects: [{ resource: 'fs:**', rights: [write] }]\n",
		});
		const config = await resolveConfig({ workspace: s.workspace, env: s.env });
		expect(config.ceiling?.value.effects).toEqual([{ resource: "fs:src/**", rights: ["read"] }]);
		expect(config.ignored.map((n) => n.item)).toEqual(["ceiling.effects"]);
	});

	it("an untrusted project may set a ceiling when the user has none", async () => {
		const s = setup({ project: "ceiling:\n  effects: [{ resource: 'fs:**', rights: [read] }]\n" });
		const config = await resolveConfig({ workspace: s.workspace, env: s.env });
		expect(config.ceiling?.value).toEqual({ effects: [{ resource: "fs:**", rights: ["read"] }] });
	});
});

describe("mergeCeilings", () => {
	it("keeps the narrower of two comparable effect lists, whichever layer wrote it", () => {
		const narrow = [{ resource: "fs:src/**", rights: ["read" as const] }];
		const wide = [{ resource: "fs:**", rights: ["read" as const, "write" as const] }];
		expect(scopesWithin(narrow, wide)).toBe(true);
		expect(scopesWithin(wide, narrow)).toBe(false);
		expect(mergeCeilings({ effects: narrow }, { effects: wide })).toEqual({ ceiling: { effects: narrow }, ignored: [] });
		expect(mergeCeilings({ effects: wide }, { effects: narrow }).ceiling.effects).toEqual(narrow);
		// A list that permits nothing is within every list.
		expect(mergeCeilings({ effects: wide }, { effects: [] }).ceiling.effects).toEqual([]);
	});

	it("sinks intersect; disjoint sinks leave the user's in force", () => {
		expect(mergeCeilings({ sinks: ["a", "b"] }, { sinks: ["b", "c"] }).ceiling.sinks).toEqual(["b"]);
		const disjoint = mergeCeilings({ sinks: ["a"] }, { sinks: ["z"] });
		expect(disjoint.ceiling.sinks).toEqual(["a"]);
		expect(disjoint.ignored.map((n) => n.item)).toEqual(["ceiling.sinks"]);
	});
});
