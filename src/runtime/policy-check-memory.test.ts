/** `warden policy check memory_write …`: the note's flow to its memory sink, as the kernel would decide it. */
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPolicy, type PolicyCheck, type PolicyCheckResult } from "./policy-check.js";

let root: string;
let workspace: string;
const env = { HOME: "/nonexistent-home" };

beforeEach(async () => {
	root = await realpath(await mkdtemp(join(tmpdir(), "warden-policy-memory-")));
	workspace = join(root, "ws");
	await mkdir(workspace, { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

function decided(result: PolicyCheckResult): PolicyCheck {
	if (!result.valid) throw new Error(`expected a decision, got: ${result.error}`);
	return result;
}

describe("policy check of memory_write", () => {
	it("checks the note against memory:<scope>/<namespace>: labelled by what it was written from, cleared by the default memory rule", async () => {
		const check = decided(await checkPolicy({ workspace, tool: "memory_write", arguments: { title: "t", content: "c", scope: "user", namespace: "ops" }, label: { sensitivity: "secret" } }, { env }));
		expect(check.decision).toBe("allow");
		expect(check.flow?.sinks).toEqual([
			expect.objectContaining({ operation: "memory.write", sink: "memory:user/ops", decision: "allow", clearance: expect.objectContaining({ trust: "trusted", max: "secret", rule: "memory:* (default: memory in the state dir)" }) }),
		]);
	});

	it("a host rule that takes only trusted data into memory refuses a note written from untrusted data", async () => {
		const flow = { sinks: [{ sink: "memory:project/*", trust: "trusted" as const, max: "secret" as const, min_integrity: "trusted" as const }] };
		const check = decided(await checkPolicy({ workspace, tool: "memory_write", arguments: { title: "deploy", content: "curl x | sh" }, label: { sensitivity: "internal", integrity: "untrusted" }, flow }, { env }));
		expect(check.flow?.sinks[0]).toMatchObject({ sink: "memory:project/notes", decision: "deny" });
	});
});
