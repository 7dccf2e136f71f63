import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { createRedactor } from "../kernel/flow/redaction.js";
import { ScriptedModel } from "../models/scripted.js";
import { HELD_LINE_CHARS, type ToolOutputEvent, toolOutputChannel } from "./live-tool-output.js";
import type { Runtime } from "./runtime.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const TOKEN = `ghp_${"a1".repeat(18)}`;

function channel() {
	const events: ToolOutputEvent[] = [];
	const sink = toolOutputChannel({ session: "s", redactor: createRedactor({ env: {} }), turn: () => 3, deliver: (e) => events.push(e) }).forCall("c1", "shell");
	return { events, sink, lines: () => events.flatMap((e) => e.payload.lines) };
}

describe("a call's live output", () => {
	it("hands on whole lines only; the rest of a line waits for its end or for the command's", () => {
		const { sink, lines } = channel();
		sink.write("stdout", "one\ntw");
		sink.write("stdout", "o\nthr");
		sink.end();
		expect(lines()).toEqual(["one", "two", "thr"]);
	});

	it("redacts each line whole, even a secret that arrived in two pieces", () => {
		const { sink, events } = channel();
		sink.write("stdout", `token ${TOKEN.slice(0, 10)}`);
		sink.write("stdout", `${TOKEN.slice(10)} end\n`);
		sink.end();
		expect(events.map((e) => e.payload.lines)).toEqual([["token [REDACTED] end"]]);
		expect(events[0]).toMatchObject({ kind: "tool.output", session: "s", turn: 3, payload: { call_id: "c1", tool: "shell", stream: "stdout" } });
	});

	it("keeps the order of stdout and stderr as one event per run of lines from one stream", () => {
		const { sink, events } = channel();
		sink.write("stdout", "a\nb\n");
		sink.write("stderr", "oops\n");
		sink.write("stdout", "c\n");
		sink.end();
		expect(events.map((e) => [e.payload.stream, e.payload.lines])).toEqual([
			["stdout", ["a", "b"]],
			["stderr", ["oops"]],
			["stdout", ["c"]],
		]);
	});

	it("shows a line that never ends in pieces of HELD_LINE_CHARS", () => {
		const { sink, lines } = channel();
		sink.write("stdout", "x".repeat(HELD_LINE_CHARS * 2 + 5));
		expect(lines()).toEqual([]);
		sink.end();
		expect(lines().map((l) => l.length)).toEqual([HELD_LINE_CHARS, HELD_LINE_CHARS, 5]);
	});

	it("a host callback that throws does not reach the command", () => {
		const sink = toolOutputChannel({ session: "s", redactor: createRedactor({ env: {} }), turn: () => 1, deliver: () => { throw new Error("host broke"); } }).forCall("c1", "shell");
		sink.write("stdout", "a\n");
		expect(() => sink.end()).not.toThrow();
	});
});

describe("a session with onToolOutput", () => {
	let root: string;
	let workspace: string;
	let runtime: Runtime;
	beforeEach(async () => {
		({ root, workspace, runtime } = await openTestRuntime("warden-live-output-"));
	});
	afterEach(() => closeTestRuntime({ root, runtime }));

	it("hears the first line while the command still runs; the recorded output is the whole of it, as without a listener", async () => {
		const command = `echo first; echo "key ${TOKEN}"; while [ ! -f go ]; do sleep 0.02; done; echo last`;
		const model = () => ScriptedModel.fromPlan({ steps: [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { text: "done" }] }, "scripted:test");
		const order: string[] = [];
		const live: ToolOutputEvent[] = [];
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: model(),
			onEvent: (e: AnyWardenEvent) => order.push(e.kind),
			onToolOutput: (e) => {
				live.push(e);
				order.push(`output:${e.payload.lines.join("|")}`);
				// The command waits for this file: it exists only once its first lines were heard.
				if (e.payload.lines.includes("first")) void import("node:fs/promises").then((fs) => fs.writeFile(`${workspace}/go`, ""));
			},
		});
		const result = await session.send("run it");
		expect(result.status).toBe("completed");
		expect(live.flatMap((e) => e.payload.lines)).toEqual(["first", "key [REDACTED]", "last"]);
		expect(order.indexOf("output:first|key [REDACTED]")).toBeGreaterThan(order.indexOf("tool.started"));
		expect(order.indexOf("output:last")).toBeLessThan(order.indexOf("tool.completed"));
		// Nothing of it is stored as events; the tool's result is as it always was.
		const stored = await runtime.sessionEvents(session.id);
		expect(stored.some((e) => (e.kind as string) === "tool.output")).toBe(false);
		await session.end("ok");
		// The same command without a listener (`go` is there now): the same recorded outcome.
		const quiet = await runtime.openSession({ workspace, mode: "full-access", model: model() });
		expect((await quiet.send("run it")).status).toBe("completed");
		await quiet.end("ok");
		const completed = async (id: string) => (await runtime.sessionEvents(id)).find((e) => e.kind === "tool.completed")?.payload;
		expect(await completed(session.id)).toEqual({ ...(await completed(quiet.id)), duration_ms: expect.any(Number) });
	});
});
