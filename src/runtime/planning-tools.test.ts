import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { ScriptedModel } from "../models/scripted.js";
import { NOBODY_THERE } from "../tools/ask-user.js";
import type { Runtime } from "./runtime.js";
import { eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-planning-"));
});
afterEach(() => closeTestRuntime({ root, runtime }));

const model = (steps: unknown[]) => ScriptedModel.fromPlan({ steps }, "scripted:test");

describe("the planning tools in a session", () => {
	it("todo_write records todo.updated with the list, in plan mode too, and the model reads it back", async () => {
		const items = [
			{ content: "look around", status: "in_progress" },
			{ content: "write the plan", status: "pending" },
		];
		const session = await runtime.openSession({ workspace, model: model([{ tool_calls: [{ name: "todo_write", arguments: { items } }] }, { text: "planned" }]), mode: "plan" });
		const events: AnyWardenEvent[] = [];
		const result = await session.send("plan it", { onEvent: (e) => events.push(e) });
		expect(result.status).toBe("completed");
		const todo = events.find((e) => e.kind === "todo.updated");
		expect(todo?.payload).toEqual({ items });
		for (const e of events) expect(validate(e)).toBeUndefined();
		expect(events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ tool: "todo_write", decision: "allow" });
		await session.end();
		// Kept with the session: the stored events hold it.
		expect((await runtime.sessionEvents(session.id)).some((e) => e.kind === "todo.updated")).toBe(true);
		await expectSoundEvidence(runtime, session.id, validate);
	});

	it("ask_user reaches the host's askUser through human:user, and without one says nobody is there", async () => {
		const asked: string[] = [];
		const ask = { tool_calls: [{ name: "ask_user", arguments: { question: "which file?" } }] };
		const withPerson = await runtime.openSession({ workspace, model: model([ask, { text: "ok" }]), askUser: async (q) => {
				asked.push(q);
				return "b.txt";
			},
		});
		await withPerson.send("go");
		const history = await runtime.store.listMessages(withPerson.id);
		expect(asked).toEqual(["which file?"]);
		expect(JSON.stringify(history)).toContain("The person answered: b.txt");
		await withPerson.end();

		const automated = await runtime.openSession({ workspace, model: model([ask, { text: "ok" }]) });
		await automated.send("go");
		expect(JSON.stringify(await runtime.store.listMessages(automated.id))).toContain(NOBODY_THERE);
		await automated.end();
	});
});
