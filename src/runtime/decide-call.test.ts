import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PermissionEngine } from "../kernel/admission/permission-engine.js";
import type { PolicyContext } from "../kernel/admission/types.js";
import { realPathIfExists } from "../providers/real-path.js";
import { readFileTool } from "../tools/read-file.js";
import { writeFileTool } from "../tools/write-file.js";
import { decideToolCall } from "./decide-call.js";

let engine: PermissionEngine;
beforeAll(async () => {
	engine = await PermissionEngine.create();
});

let base: string;
let workspace: string;
beforeEach(() => {
	base = realpathSync(mkdtempSync(path.join(tmpdir(), "warden-decide-")));
	workspace = path.join(base, "ws");
	mkdirSync(path.join(workspace, "src"), { recursive: true });
	writeFileSync(path.join(workspace, "src/a.txt"), "a");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function policy(resolvePath: (p: string) => string | undefined, home = homedir()): PolicyContext {
	return { mode: "workspace-write", workspace, home, runDenyRules: [], hostRules: [], resolvePath };
}

describe("decideToolCall's real-path lookups", () => {
	it("resolves each path once per decision, though the path as written and as real are both decided", async () => {
		const asked: string[] = [];
		const counting = (p: string) => {
			asked.push(p);
			return realPathIfExists(p);
		};
		const result = await decideToolCall(engine, policy(counting), readFileTool, { path: "src/a.txt" });
		expect(result.decision).toBe("allow");
		expect(asked.length).toBeGreaterThan(0);
		expect(new Set(asked).size).toBe(asked.length);
	});

	it("asks again in the next decision: a target retargeted between two calls is judged as it is then", async () => {
		const fakeHome = path.join(base, "home");
		mkdirSync(path.join(fakeHome, ".ssh"), { recursive: true });
		writeFileSync(path.join(fakeHome, ".ssh/id_rsa"), "key");
		symlinkSync(path.join(workspace, "src/a.txt"), path.join(workspace, "link"));
		const ctx = policy(realPathIfExists, fakeHome);
		expect((await decideToolCall(engine, ctx, writeFileTool, { path: "link", content: "x" })).decision).not.toBe("deny");
		rmSync(path.join(workspace, "link"));
		symlinkSync(path.join(fakeHome, ".ssh/id_rsa"), path.join(workspace, "link"));
		const second = await decideToolCall(engine, ctx, writeFileTool, { path: "link", content: "x" });
		expect(second).toMatchObject({ decision: "deny", layer: "hardline" });
	});
});
