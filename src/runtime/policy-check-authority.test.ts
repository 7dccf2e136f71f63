import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPolicy, type PolicyCheck, type PolicyCheckResult } from "./policy-check.js";
import { Runtime } from "./runtime.js";

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	root = await realpath(await mkdtemp(join(tmpdir(), "warden-policy-authority-")));
	workspace = join(root, "ws");
	await mkdir(join(workspace, "src"), { recursive: true });
	await writeFile(join(workspace, "src", "a.ts"), "export const a = 1;\n");
	runtime = await Runtime.open({ stateDir: join(root, "state"), env: process.env });
});

afterEach(async () => {
	await runtime.close();
	await rm(root, { recursive: true, force: true });
});

function decided(result: PolicyCheckResult): PolicyCheck {
	if (!result.valid) throw new Error(`expected a decision, got: ${result.error}`);
	return result;
}

describe("policy check: persisted approvals", () => {
	it("a persisted always-allow of the workspace decides the call and is named by its id", async () => {
		const rule = await runtime.store.addApprovedRule({
			tool: "shell",
			pattern: "touch made.txt",
			outcome: "allow",
			workspace,
			created_at: "2025-03-01T10:00:00.000Z",
			created_by: "alice",
			session: "s0",
		});
		// In the workspace-write sandbox a plain touch runs unasked: a host ask rule stands for the ask the approval answered.
		const TOUCH_ASKS = { ask: ["shell(touch *)"] };
		const check = decided(await runtime.checkPolicy({ workspace, tool: "shell", arguments: { command: "touch made.txt" }, rules: TOUCH_ASKS }));
		expect(check.decision).toBe("allow");
		expect(check.rule).toEqual({ text: "shell(touch made.txt)", source: `approved rule #${rule.id}` });

		await runtime.revokeApprovedRule(rule.id, "test");
		const after = decided(await runtime.checkPolicy({ workspace, tool: "shell", arguments: { command: "touch made.txt" }, rules: TOUCH_ASKS }));
		expect(after.decision).toBe("ask");
	});

	it("rules passed in count only for their own workspace, and an always-deny beats a configured allow", async () => {
		const base = { created_at: "2025-03-01T10:00:00.000Z", created_by: "bob", session: "s0", tool: "shell", pattern: "npm test" };
		const check = decided(
			await checkPolicy({
				workspace,
				rules: { allow: ["shell(npm test)"] },
				approvedRules: [
					{ ...base, id: 7, outcome: "deny", workspace },
					{ ...base, id: 8, outcome: "allow", workspace: "/elsewhere" },
				],
				tool: "shell",
				arguments: { command: "npm test" },
			}),
		);
		expect(check.decision).toBe("deny");
		expect(check.rule?.source).toBe("approved rule #7");
	});
});

describe("policy check: the capability verdict at the primitive", () => {
	it("names the preset grant that admits a file read and a write", async () => {
		const read = decided(await runtime.checkPolicy({ workspace, tool: "read_file", arguments: { path: "src/a.ts" } }));
		expect(read.capability.admitted).toBe(true);
		expect(read.capability.checks).toEqual([
			expect.objectContaining({ resource: "fs:src/a.ts", right: "read", grant: "mode:workspace-write:fs", source: "preset workspace-write" }),
		]);
		expect(read.capability.checks[0]?.verdict).toBe("allowed by grant mode:workspace-write:fs (preset workspace-write)");
		const edit = decided(await runtime.checkPolicy({ workspace, tool: "edit_file", arguments: { path: "src/a.ts", old: "1", new: "2" } }));
		expect(edit.capability.checks.map((c) => c.right)).toEqual(["read", "write"]);
	});

	it("a call the rules allow is still refused outside a narrow ceiling, with the ceiling's hash", async () => {
		const check = decided(
			await runtime.checkPolicy({
				workspace,
				ceiling: { effects: [{ resource: "fs:src/**", rights: ["read"] }] },
				tool: "shell",
				arguments: { command: "git status && ls" },
			}),
		);
		expect(check.decision).toBe("allow");
		expect(check.capability.admitted).toBe(false);
		expect(check.capability.checks.map((c) => [c.resource, c.reason])).toEqual([
			["shell:git status", "ceiling"],
			["shell:ls", "ceiling"],
		]);
		expect(check.capability.checks[0]?.verdict).toBe(`refused: outside the task ceiling ${check.capability.ceiling.slice(0, 12)}`);
	});

	it("host grants replace the preset: deny beats allow, and a used-up counted grant shows on the next sub-command", async () => {
		const grants = [
			{ id: "src", resource: "fs:**", rights: ["read" as const] },
			{ id: "no-env", resource: "fs:.env", rights: ["read" as const], effect: "deny" as const },
			{ id: "once", resource: "shell:*", rights: ["exec" as const], uses: 1 },
		];
		const env = decided(await runtime.checkPolicy({ workspace, grants, tool: "read_file", arguments: { path: ".env" } }));
		expect(env.capability.checks[0]).toMatchObject({ admitted: false, reason: "denied", grant: "no-env" });
		const ok = decided(await runtime.checkPolicy({ workspace, grants, tool: "read_file", arguments: { path: "src/a.ts" } }));
		expect(ok.capability.checks[0]).toMatchObject({ admitted: true, grant: "src", source: "host grant" });
		const twice = decided(await runtime.checkPolicy({ workspace, grants, tool: "shell", arguments: { command: "ls && pwd" } }));
		expect(twice.capability.checks.map((c) => c.admitted)).toEqual([true, false]);
		expect(twice.capability.checks[1]?.reason).toBe("used-up");
	});

	it("a path outside the workspace is refused before any grant, and an ask grant is checked as if approved", async () => {
		const outside = decided(await runtime.checkPolicy({ workspace, tool: "read_file", arguments: { path: "/etc/hosts" } }));
		expect(outside.capability.admitted).toBe(false);
		expect(outside.capability.note).toMatch(/before any grant is consulted$/);
		const grants = [{ id: "ask-write", resource: "fs:**", rights: ["read" as const, "write" as const], effect: "ask" as const }];
		const call = { workspace, grants, tool: "write_file", arguments: { path: "src/b.ts", content: "x" } };
		const asked = decided(await runtime.checkPolicy({ ...call, rules: { ask: ["write_file"] } }));
		expect(asked.decision).toBe("ask");
		expect(asked.capability).toMatchObject({ admitted: true, assumedApproved: true });
		// Allowed without anyone asked, the ask grant refuses at the primitive.
		const unasked = decided(await runtime.checkPolicy(call));
		expect(unasked.decision).toBe("allow");
		expect(unasked.capability.checks[0]).toMatchObject({ admitted: false, reason: "not-approved" });
	});
});
