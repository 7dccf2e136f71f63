import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { ScriptedModel } from "../models/scripted.js";
import type { Runtime } from "./runtime.js";
import { eventValidator } from "./test-support/evidence-checks.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-subagent-events-", { files: { "notes.txt": "hello\n" } }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const agentStep = (args: Record<string, unknown>) => ({ tool_calls: [{ name: "agent", arguments: args }] });
const read = { tool_calls: [{ name: "read_file", arguments: { path: "notes.txt" } }] };

function withoutLineage(event: AnyWardenEvent): AnyWardenEvent {
	const { lineage: _lineage, ...rest } = event;
	return rest as AnyWardenEvent;
}

/** Where the host heard an event: its index in the received stream. */
function indexOf(heard: AnyWardenEvent[], session: string, kind: string, callId?: string): number {
	return heard.findIndex((e) => e.session === session && e.kind === kind && (callId === undefined || (e.payload as { call_id?: string }).call_id === callId));
}

async function childrenOf(parent: string) {
	return (await runtime.listSessions()).filter((s) => s.parent_session === parent);
}

describe("sub-agent events reach the host", () => {
	it("a foreground and a background child's events reach onEvent with lineage, in committed order within each session", async () => {
		const heard: AnyWardenEvent[] = [];
		const session = await runtime.openSession({
			workspace,
			onEvent: (event) => heard.push(event),
			model: ScriptedModel.fromPlan(
				{
					steps: [
						agentStep({ task: "fg", tools: ["read_file"], steps: [read, { text: "fg done" }] }),
						agentStep({ task: "bg", tools: ["read_file"], background: true, steps: [read, { text: "bg done" }] }),
						{ text: "parent done" },
					],
				},
				"scripted:test",
			),
		});
		expect((await session.send("delegate")).status).toBe("completed");
		await session.end();

		expect(heard.map(validate).filter((problem) => problem !== undefined)).toEqual([]);
		const children = await childrenOf(session.id);
		expect(children).toHaveLength(2);
		const fg = children.find((c) => c.parent_call === "call_1_1_1")!;
		const bg = children.find((c) => c.parent_call === "call_1_2_1")!;

		// Each session's events reach the host exactly as they were committed to its stream.
		for (const id of [session.id, fg.id, bg.id]) {
			expect(heard.filter((e) => e.session === id).map(withoutLineage)).toEqual(await runtime.sessionEvents(id));
		}
		expect(heard.filter((e) => e.session === session.id).every((e) => e.lineage === undefined)).toBe(true);
		expect(heard.filter((e) => e.session === fg.id).every((e) => e.lineage?.parent_call === "call_1_1_1")).toBe(true);
		expect(heard.find((e) => e.session === bg.id)?.lineage).toEqual({ parent_session: session.id, parent_call: "call_1_2_1", depth: 1 });

		// Interleaved with the parent's: a foreground child runs inside its call, a background one before the parent's turn ends.
		// The child's session is opened (session.started) before the parent records that it started it.
		expect(indexOf(heard, fg.id, "session.started")).toBeLessThan(indexOf(heard, session.id, "subagent.started", "call_1_1_1"));
		expect(indexOf(heard, fg.id, "turn.started")).toBeGreaterThan(indexOf(heard, session.id, "subagent.started", "call_1_1_1"));
		expect(indexOf(heard, fg.id, "session.ended")).toBeLessThan(indexOf(heard, session.id, "subagent.completed", "call_1_1_1"));
		expect(indexOf(heard, bg.id, "turn.started")).toBeGreaterThan(indexOf(heard, session.id, "subagent.started", "call_1_2_1"));
		expect(indexOf(heard, bg.id, "session.ended")).toBeLessThan(indexOf(heard, session.id, "subagent.completed", "call_1_2_1"));
		expect(indexOf(heard, session.id, "subagent.completed", "call_1_2_1")).toBeLessThan(indexOf(heard, session.id, "turn.completed"));
	});

	it("a grandchild's events reach the top host with their own lineage, and the turn's stream carries them too", async () => {
		const heard: AnyWardenEvent[] = [];
		const session = await runtime.openSession({
			workspace,
			onEvent: (event) => heard.push(event),
			model: ScriptedModel.fromPlan(
				{
					steps: [
						agentStep({ task: "child", tools: ["agent", "read_file"], steps: [agentStep({ task: "g", tools: ["read_file"], steps: [read, { text: "g done" }] }), { text: "child done" }] }),
						{ text: "done" },
					],
				},
				"scripted:test",
			),
		});
		const streamed: AnyWardenEvent[] = [];
		expect((await session.send("go", { onEvent: (event) => streamed.push(event) })).status).toBe("completed");
		const [child] = await childrenOf(session.id);
		const [grandchild] = await childrenOf(child!.id);
		expect(heard.filter((e) => e.session === grandchild!.id).map((e) => e.lineage)).toContainEqual({ parent_session: child!.id, parent_call: "call_1_1_1", depth: 2 });
		expect(heard.filter((e) => e.session === grandchild!.id).every((e) => e.lineage?.depth === 2)).toBe(true);
		expect(heard.filter((e) => e.session === child!.id).every((e) => e.lineage?.depth === 1 && e.lineage.parent_session === session.id)).toBe(true);
		expect(heard.filter((e) => e.session === grandchild!.id).map(withoutLineage)).toEqual(await runtime.sessionEvents(grandchild!.id));
		// The turn's own stream (session.run / send's onEvent) hears the same events in the same order, less the session-level ones.
		expect(streamed).toEqual(heard.filter((e) => !(e.session === session.id && e.turn === 0)));
		await session.end();
	});
});
