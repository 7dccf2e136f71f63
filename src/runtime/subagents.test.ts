import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { ScriptedModel } from "../models/scripted.js";
import type { Runtime } from "./runtime.js";
import { eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-subagents-", { dirs: ["secrets"] }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const exists = (path: string) =>
	stat(path).then(
		() => true,
		() => false,
	);

function scripted(steps: unknown[]): ScriptedModel {
	return ScriptedModel.fromPlan({ steps }, "scripted:test");
}

const agentStep = (args: Record<string, unknown>) => ({ tool_calls: [{ name: "agent", arguments: args }] });
const write = (path: string) => ({ tool_calls: [{ name: "write_file", arguments: { path, content: "x\n" } }] });

async function childOf(parent: string) {
	const children = (await runtime.listSessions()).filter((s) => s.parent_session === parent);
	expect(children).toHaveLength(1);
	return children[0]!;
}

function kinds(events: AnyWardenEvent[], kind: string) {
	return events.filter((e) => e.kind === kind);
}

describe("sub-agents", () => {
	it("returns a foreground child's answer to the parent model and records the lineage", async () => {
		const model = new RecordingModel([
			callsStep({ name: "agent", arguments: { task: "summarize", tools: ["read_file"] } }),
			{ text: "child says: all good", toolCalls: [] },
			{ text: "parent done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model });
		const result = await session.send("delegate");
		expect(result).toMatchObject({ status: "completed", text: "parent done" });
		const toolMessage = model.requests[2]!.find((m) => m.role === "tool");
		expect(toolMessage?.content).toContain("child says: all good");
		await session.end();

		const child = await childOf(session.id);
		expect(child).toMatchObject({ parent_call: "call_1_1_1", status: "ok" });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(kinds(events, "subagent.started")[0]?.payload).toEqual({ call_id: "call_1_1_1", child_session: child.id, depth: 1, mode: "workspace-write", tools: ["read_file"] });
		expect(kinds(events, "subagent.completed")[0]?.payload).toEqual({ call_id: "call_1_1_1", child_session: child.id, status: "completed", result_used: "returned" });
		await expectSoundEvidence(runtime, child.id, validate);
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.filter((r) => r.kind.startsWith("subagent.")).map((r) => [r.kind, r.call_id, r.data.child_session])).toEqual([
			["subagent.started", "call_1_1_1", child.id],
			["subagent.completed", "call_1_1_1", child.id],
		]);
	});

	it("a child cannot write where the parent's ceiling excludes, and the refusal is at the primitive", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			ceiling: { exclude: [{ resource: "fs:secrets/**", rights: ["write"] }] },
			model: scripted([agentStep({ task: "write", steps: [write("secrets/key.txt"), { text: "tried" }] }), { text: "done" }]),
		});
		await session.send("go");
		await session.end();
		expect(await exists(join(workspace, "secrets/key.txt"))).toBe(false);
		const child = await childOf(session.id);
		const childEvents = await expectSoundEvidence(runtime, child.id, validate);
		expect(kinds(childEvents, "tool.failed")[0]?.payload).toMatchObject({ tool: "write_file", error: expect.stringMatching(/ceiling/) });
		expect((await runtime.listAudit({ session: child.id })).some((r) => r.kind === "authority.denied")).toBe(true);
	});

	it("gives the child the parent's protected paths: the host's entries and the defaults, never auto-allowed even in full-access", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			protectedPaths: [{ pattern: "deploy/**", reason: "writes the deploy scripts CI runs" }],
			rules: { allow: ["write_file"] },
			model: scripted([agentStep({ task: "write", steps: [write("deploy/run.sh"), write(".warden/config.yaml"), { text: "tried" }] }), { text: "done" }]),
		});
		await session.send("go");
		await session.end();
		expect(await exists(join(workspace, "deploy/run.sh"))).toBe(false);
		expect(await exists(join(workspace, ".warden/config.yaml"))).toBe(false);
		const child = await childOf(session.id);
		const decided = kinds(await expectSoundEvidence(runtime, child.id, validate), "permission.decided").map((e) => e.payload as { layer: string; reason: string; protected?: { source: string } });
		expect(decided.map((d) => d.layer)).toEqual(["protected-path", "protected-path"]);
		expect(decided[0]!.reason).toMatch(/^writes the deploy scripts CI runs/);
		expect(decided.map((d) => d.protected?.source)).toEqual(["host", "default"]);
	});

	it("refuses a mode more permissive than the parent's, and a read-only parent's child cannot write", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "read-only",
			model: scripted([
				agentStep({ task: "write", mode: "workspace-write", steps: [write("a.txt")] }),
				agentStep({ task: "write", steps: [write("b.txt"), { text: "tried" }] }),
				{ text: "done" },
			]),
		});
		await session.send("go");
		await session.end();
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(kinds(events, "tool.failed")[0]?.payload).toMatchObject({ call_id: "call_1_1_1", error: expect.stringMatching(/mode workspace-write is more permissive than this session's read-only/) });
		expect(await exists(join(workspace, "a.txt"))).toBe(false);
		expect(await exists(join(workspace, "b.txt"))).toBe(false);
		const child = await childOf(session.id);
		expect(child.mode).toBe("read-only");
		expect(kinds(await runtime.sessionEvents(child.id), "tool.denied")).toHaveLength(1);
	});

	it("the parent's run-deny rules apply inside the child (PEERS item 4)", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			runDeny: ["shell(touch *)"],
			model: scripted([agentStep({ task: "touch", steps: [{ tool_calls: [{ name: "shell", arguments: { command: "touch made.txt" } }] }, { text: "tried" }] }), { text: "done" }]),
		});
		await session.send("go");
		await session.end();
		expect(await exists(join(workspace, "made.txt"))).toBe(false);
		const child = await childOf(session.id);
		expect(kinds(await runtime.sessionEvents(child.id), "permission.decided")[0]?.payload).toMatchObject({ decision: "deny", layer: "run-deny" });
	});

	it("charges what the child spends to the parent's budget", async () => {
		const session = await runtime.openSession({
			workspace,
			budget: { tool_calls: 4 },
			model: scripted([
				agentStep({ task: "two reads", steps: [{ tool_calls: [{ name: "list_dir", arguments: { path: "." } }, { name: "glob", arguments: { pattern: "*" } }] }, { text: "ok" }] }),
				{ tool_calls: [{ name: "list_dir", arguments: { path: "." } }, { name: "list_dir", arguments: { path: "secrets" } }] },
				{ text: "done" },
			]),
		});
		const result = await session.send("go");
		// The agent call (1) and the child's two calls (2) leave one: the next step's second call is refused.
		expect(result.status).toBe("budget_exhausted");
		expect(session.budgetUsage().tool_calls).toEqual({ used: 4, limit: 4 });
		await session.end();
		await expectSoundEvidence(runtime, session.id, validate);
	});

	it("cancelling the parent cancels a background child", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([
				agentStep({ task: "wait", background: true, steps: [{ tool_calls: [{ name: "shell", arguments: { command: "sleep 20" } }] }, { text: "woke" }] }),
				{ text: "parent waits for its child" },
			]),
		});
		const turn = session.send("go");
		let child: string | undefined;
		const deadline = Date.now() + 10_000;
		while (Date.now() < deadline) {
			child = (await runtime.listSessions()).find((s) => s.parent_session === session.id)?.id;
			if (child && kinds(await runtime.sessionEvents(child), "tool.started").length > 0) break;
			await new Promise((r) => setTimeout(r, 20));
		}
		expect(child).toBeDefined();
		await session.cancel();
		expect((await turn).status).toBe("cancelled");
		await session.end();
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(kinds(events, "subagent.completed")[0]?.payload).toMatchObject({ child_session: child, status: "cancelled", result_used: "background" });
		await expectSoundEvidence(runtime, child!, validate);
		expect((await runtime.getSession(child!))?.status).toBe("ok");
	}, 15_000);

	it("stops nesting at depth 2", async () => {
		const grandchild = { task: "g", steps: [{ text: "grandchild done" }] };
		const greatGrandchild = { task: "gg", tools: ["agent"], steps: [{ text: "never" }] };
		const session = await runtime.openSession({
			workspace,
			model: scripted([
				agentStep({
					task: "child",
					tools: ["agent", "read_file"],
					steps: [agentStep(grandchild), agentStep({ task: "g2", tools: ["agent"], steps: [agentStep(greatGrandchild), { text: "g2 done" }] }), { text: "child done" }],
				}),
				{ text: "done" },
			]),
		});
		expect((await session.send("go")).status).toBe("completed");
		await session.end();
		const child = await childOf(session.id);
		const childEvents = await expectSoundEvidence(runtime, child.id, validate);
		// The grandchild ran; the second one asked for `agent` at depth 2 and was refused.
		expect(kinds(childEvents, "subagent.started").map((e) => (e.payload as { depth: number }).depth)).toEqual([2]);
		expect(kinds(childEvents, "tool.failed")[0]?.payload).toMatchObject({ error: expect.stringMatching(/depth 2 cannot spawn sub-agents/) });
	});
});
