import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRepositoryConfig } from "../protected/derived-registry.js";
import { PermissionEngine } from "./permission-engine.js";
import { fileTool, policy, shellTool } from "./test-support/policy-fixtures.js";
import type { PolicyContext } from "./types.js";

let engine: PermissionEngine;
let ws: string;
let ctx: PolicyContext;

beforeAll(async () => {
	engine = await PermissionEngine.create();
	ws = realpathSync(mkdtempSync(join(tmpdir(), "warden-derived-decision-")));
	mkdirSync(join(ws, ".git"));
	mkdirSync(join(ws, "config"));
	writeFileSync(join(ws, ".git/HEAD"), "ref: refs/heads/main\n");
	writeFileSync(join(ws, ".git/config"), "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../config/git.inc\n");
	writeFileSync(join(ws, "config/git.inc"), "[filter \"lfs\"]\n\tclean = ./tools/clean %f\n");
	// The runtime hands the engine the registry with what the repository's config names (runtime/decide-call.ts).
	ctx = policy({ workspace: ws, sandbox: { available: true }, protectedPaths: withRepositoryConfig(undefined, ws, join(ws, "no-home"), { rescan: true }) });
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const file = (tool: string, path: string, mode: PolicyContext["mode"] = "workspace-write") => engine.decide(fileTool(tool, path), { path }, { ...ctx, mode });
const sh = (command: string) => engine.decide(shellTool(command), { command }, ctx);

describe("paths a repository's config names, at the decision", () => {
	it("asks for write_file of a hook under core.hooksPath, in every writing mode, saying which key of which file names it", () => {
		for (const mode of ["workspace-write", "full-access"] as const) {
			const result = file("write_file", ".githooks/pre-commit", mode);
			expect(result).toMatchObject({ decision: "ask", layer: "protected-path", protected: { path: ".githooks/pre-commit", source: "repository config .git/config" } });
			expect(result.reason).toMatch(/^named by core\.hookspath in \.git\/config: git runs the hooks/);
		}
		expect(file("edit_file", ".githooks")).toMatchObject({ decision: "ask", layer: "protected-path" });
	});

	it("asks for a write of the included config and of the program it names", () => {
		expect(file("write_file", "config/git.inc")).toMatchObject({ decision: "ask", protected: { reason: expect.stringMatching(/^named by include\.path in \.git\/config/) } });
		expect(file("write_file", "tools/clean")).toMatchObject({ decision: "ask", protected: { reason: expect.stringMatching(/^named by filter\.lfs\.clean in config\/git\.inc/) } });
	});

	it("leaves ordinary work, and reads, to the mode", () => {
		expect(file("write_file", "config/other.txt")).toMatchObject({ decision: "allow", layer: "mode-rule" });
		expect(file("write_file", "githooks.md")).toMatchObject({ decision: "allow", layer: "mode-rule" });
		expect(file("read_file", ".githooks/pre-commit")).toMatchObject({ decision: "allow" });
	});

	it("asks for a shell command that visibly writes one", () => {
		const hook = sh("printf '#!/bin/sh\\n' > .githooks/pre-commit");
		expect(hook).toMatchObject({ decision: "ask" });
		expect(hook.reason).toContain("named by core.hookspath in .git/config");
		const include = sh("cp notes.txt config/git.inc");
		expect(include).toMatchObject({ decision: "ask" });
		expect(include.reason).toContain("named by include.path in .git/config");
		expect(sh("printf x > notes.txt")).toMatchObject({ decision: "allow" });
	});
});
