import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { ScriptedModel } from "../models/scripted.js";
import { Runtime } from "./runtime.js";
import type { Session } from "./session.js";
import type { ConfirmCallback } from "./session-options.js";
import { callIdOf, callKinds, eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { RecordingModel } from "./test-support/recording-model.js";
import type { TurnResult } from "./turn-loop.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-cancel-", { files: { "notes.md": "remember the milk\n" } }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

function scripted(steps: unknown[]): ScriptedModel {
	return ScriptedModel.fromPlan({ steps }, "scripted:test");
}

const shellCall = (command: string) => ({ name: "shell", arguments: { command } });
/** In the workspace-write sandbox a plain `touch` runs unasked; these tests need a command that asks. */
const rules = { ask: ["shell(touch *)"] };
const readCall = (path: string) => ({ name: "read_file", arguments: { path } });

async function exists(path: string): Promise<boolean> {
	return stat(path).then(
		() => true,
		() => false,
	);
}

async function waitFor(condition: () => Promise<boolean>, what: string, ms = 5_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!(await condition())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 10));
	}
}

/** Fails the test instead of hanging it when a turn does not end. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs a turn through the generator, handing each event to `onEvent` before reading the next. */
async function drive(session: Session, input: string, onEvent: (e: AnyWardenEvent) => void | Promise<void>, signal?: AbortSignal): Promise<TurnResult> {
	const turn = session.run(input, signal ? { signal } : {});
	for (;;) {
		const next = await turn.next();
		if (next.done) return next.value;
		await onEvent(next.value);
	}
}

/** Index of the first event of `kind` for `callId`; -1 when there is none. */
function at(events: readonly AnyWardenEvent[], callId: string, kind: string): number {
	return events.findIndex((e) => e.kind === kind && callIdOf(e) === callId);
}

function terminalAt(events: readonly AnyWardenEvent[], callId: string): number {
	return events.findIndex((e) => ["tool.completed", "tool.failed", "tool.cancelled"].includes(e.kind) && callIdOf(e) === callId);
}

describe("cancelling a turn with an AbortSignal", () => {
	it("kills a running command and what it started, ends the call cancelled and the turn promptly", async () => {
		const controller = new AbortController();
		// A background child that would leave a marker after 1 s, then a foreground sleep that would leave another.
		const command = "(sleep 1; touch late-marker.txt) & echo running > running.txt; sleep 30; touch marker.txt";
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([{ tool_calls: [shellCall(command)] }, { text: "never reached" }]),
		});
		let runningSince = 0;
		const result = await within(
			drive(
				session,
				"sleep a while",
				async (e) => {
					if (e.kind !== "tool.started") return;
					await waitFor(() => exists(join(workspace, "running.txt")), "the command to start");
					runningSince = Date.now();
					controller.abort();
				},
				controller.signal,
			),
			10_000,
			"the cancelled turn",
		);
		expect(Date.now() - runningSince).toBeLessThan(3_000);
		expect(result).toMatchObject({ status: "cancelled", error: "turn cancelled by the host", steps: 1 });
		expect(result.toolCalls).toMatchObject({ total: 1, cancelled: 1, completed: 0 });

		// Past the background child's second: had any process of the command survived, its marker would be here.
		await new Promise((r) => setTimeout(r, Math.max(0, runningSince + 1_300 - Date.now())));
		expect(await exists(join(workspace, "late-marker.txt"))).toBe(false);
		expect(await exists(join(workspace, "marker.txt"))).toBe(false);

		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(callKinds(events, "call_1_1_1")).toEqual(["tool.proposed", "permission.decided", "tool.started", "effect.recorded", "tool.cancelled"]);
		expect(events.filter((e) => e.kind === "model.requested")).toHaveLength(1);
		expect(events.at(-1)).toMatchObject({ kind: "turn.completed", payload: { status: "cancelled" } });
	});

	it("refuses an ask whose confirmation is pending, and starts nothing after it", async () => {
		const controller = new AbortController();
		let asked = 0;
		const confirm: ConfirmCallback = (_request, signal) =>
			new Promise<boolean>((resolve) => {
				asked++;
				signal.addEventListener("abort", () => resolve(false), { once: true });
				setTimeout(() => controller.abort(), 20);
			});
		const session = await runtime.openSession({
			workspace,
			model: scripted([{ tool_calls: [shellCall("touch made.txt"), readCall("notes.md")] }, { text: "never reached" }]),
			rules,
			confirm,
		});
		const result = await within(session.send("make a file", { signal: controller.signal }), 5_000, "the cancelled turn");
		expect(asked).toBe(1);
		expect(result).toMatchObject({ status: "cancelled", toolCalls: { total: 2, cancelled: 2, completed: 0 } });
		expect(await exists(join(workspace, "made.txt"))).toBe(false);

		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.some((e) => e.kind === "tool.started")).toBe(false);
		expect(events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ call_id: "call_1_1_1", approved: false });
		expect(events.filter((e) => e.kind === "tool.cancelled").map((e) => e.payload.reason)).toEqual([
			"turn cancelled while waiting for approval",
			"turn cancelled before the call started",
		]);
	});

	it("does not wait for a confirm callback that ignores the signal", async () => {
		const controller = new AbortController();
		const session = await runtime.openSession({
			workspace,
			model: scripted([{ tool_calls: [shellCall("touch made.txt")] }, { text: "never reached" }]),
			rules,
			confirm: () => {
				setTimeout(() => controller.abort(), 20);
				return new Promise<boolean>(() => undefined);
			},
		});
		const result = await within(session.send("make a file", { signal: controller.signal }), 3_000, "the cancelled turn");
		expect(result.status).toBe("cancelled");
		expect(await exists(join(workspace, "made.txt"))).toBe(false);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		// The ask expired at the abort, recorded before the call's outcome: never left pending, never answered.
		expect(callKinds(events, "call_1_1_1")).toEqual(["tool.proposed", "permission.decided", "ask.opened", "ask.expired", "permission.confirmed", "tool.cancelled"]);
		expect(events.find((e) => e.kind === "ask.expired")?.payload).toMatchObject({ why: "turn cancelled" });
	});

	it("cancels before the first model call when the signal is already aborted", async () => {
		const model = new RecordingModel([{ text: "unused", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model });
		const result = await session.send("hi", { signal: AbortSignal.abort() });
		expect(result).toMatchObject({ status: "cancelled", steps: 0 });
		expect(model.requests).toHaveLength(0);
		await expectSoundEvidence(runtime, session.id, validate);
	});

	it("cancels a turn whose host stops reading, before another turn can start", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([{ tool_calls: [shellCall("sleep 30")] }, { text: "second turn answer" }]),
		});
		for await (const e of session.run("sleep")) {
			if (e.kind === "tool.started") break;
		}
		const next = await within(session.send("next"), 5_000, "the second turn");
		expect(next).toMatchObject({ turn: 2, status: "completed", text: "second turn answer" });

		const events = await expectSoundEvidence(runtime, session.id, validate);
		const firstTurn = events.filter((e) => e.turn === 1).map((e) => e.kind);
		expect(firstTurn.slice(-2)).toEqual(["tool.cancelled", "turn.completed"]);
		expect(events.find((e) => e.kind === "turn.completed" && e.turn === 1)?.payload).toMatchObject({ status: "cancelled" });
	});

	it("never starts a call still queued behind another call to the same tool", async () => {
		const controller = new AbortController();
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([{ tool_calls: [shellCall("sleep 30"), shellCall("touch queued.txt")] }, { text: "never reached" }]),
		});
		const result = await within(
			drive(
				session,
				"two shell calls",
				(e) => {
					if (e.kind === "tool.started") controller.abort();
				},
				controller.signal,
			),
			5_000,
			"the cancelled turn",
		);
		expect(result).toMatchObject({ status: "cancelled", toolCalls: { total: 2, cancelled: 2 } });
		expect(await exists(join(workspace, "queued.txt"))).toBe(false);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(callKinds(events, "call_1_1_2")).toEqual(["tool.proposed", "permission.decided", "tool.cancelled"]);
	});

	it("runtime.close() cancels a running turn, lets it finish its evidence, and ends the session", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([{ tool_calls: [shellCall("sleep 30")] }, { text: "never reached" }]),
		});
		let closing: Promise<void> | undefined;
		const began = Date.now();
		const result = await within(
			session.send("sleep", {
				onEvent: (e) => {
					if (e.kind === "tool.started") closing = runtime.close();
				},
			}),
			5_000,
			"the turn",
		);
		await closing;
		expect(Date.now() - began).toBeLessThan(5_000);
		expect(result.status).toBe("cancelled");
		await expect(session.send("again")).rejects.toThrow(/has ended/);

		runtime = await Runtime.open({ stateDir: join(root, "state"), env: process.env });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.slice(-3).map((e) => e.kind)).toEqual(["tool.cancelled", "turn.completed", "session.ended"]);
		expect(await runtime.getSession(session.id)).toMatchObject({ status: "ok" });
	});
});

describe("host callbacks that throw", () => {
	it("an onEvent given to openSession that throws does not cut the turn short", async () => {
		let calls = 0;
		const session = await runtime.openSession({
			workspace,
			model: scripted([{ tool_calls: [readCall("notes.md")] }, { text: "done" }]),
			onEvent: () => {
				calls++;
				throw new Error("display crashed");
			},
		});
		const result = await session.send("read");
		expect(result).toMatchObject({ status: "completed", text: "done" });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(calls).toBe(events.length);
	});

	it("an onEvent given to send() that throws rejects send, cancels the turn, and frees the session", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([{ tool_calls: [shellCall("sleep 30")] }, { text: "second turn" }]),
		});
		const failing = session.send("sleep", {
			onEvent: (e) => {
				if (e.kind === "tool.started") throw new Error("display crashed");
			},
		});
		await expect(within(failing, 5_000, "the turn")).rejects.toThrow("display crashed");
		expect(await session.send("next")).toMatchObject({ turn: 2, status: "completed", text: "second turn" });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.find((e) => e.kind === "turn.completed" && e.turn === 1)?.payload).toMatchObject({ status: "cancelled" });
	});
});

describe("cancelling one tool call", () => {
	it("cancels only that call; the other tool finishes and the turn goes on to the next step", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([{ tool_calls: [shellCall("sleep 30"), readCall("notes.md")] }, { text: "after the cancel" }]),
		});
		let cancelled: boolean | undefined;
		const began = Date.now();
		const result = await within(
			drive(session, "two things", (e) => {
				if (e.kind === "tool.completed" && e.payload.call_id === "call_1_1_2") {
					expect(session.cancelToolCall("call_9_9_9")).toBe(false);
					cancelled = session.cancelToolCall("call_1_1_1");
				}
			}),
			10_000,
			"the turn",
		);
		expect(cancelled).toBe(true);
		expect(Date.now() - began).toBeLessThan(5_000);
		expect(result).toMatchObject({ status: "completed", text: "after the cancel", steps: 2 });
		expect(result.toolCalls).toEqual({ total: 2, completed: 1, denied: 0, cancelled: 1, invalid: 0, failed: 0 });
		expect(session.cancelToolCall("call_1_1_1")).toBe(false);

		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(callKinds(events, "call_1_1_1").at(-1)).toBe("tool.cancelled");
		expect(callKinds(events, "call_1_1_2").at(-1)).toBe("tool.completed");
		// Both were running at once: the read started before the shell call ended.
		expect(at(events, "call_1_1_2", "tool.started")).toBeLessThan(terminalAt(events, "call_1_1_1"));
	});
});

describe("parallel and serial execution", () => {
	it("runs calls to one tool one after another, and different tools side by side", async () => {
		const session = await runtime.openSession({
			workspace,
			mode: "full-access",
			model: scripted([
				{ tool_calls: [shellCall("sleep 0.3; echo first"), shellCall("echo second"), readCall("notes.md")] },
				{ text: "done" },
			]),
		});
		const result = await session.send("three calls");
		expect(result.toolCalls).toMatchObject({ total: 3, completed: 3 });
		const events = await expectSoundEvidence(runtime, session.id, validate);

		const [first, second, read] = ["call_1_1_1", "call_1_1_2", "call_1_1_3"];
		// Same tool: the second shell call starts only after the first one ended.
		expect(at(events, second!, "tool.started")).toBeGreaterThan(terminalAt(events, first!));
		// Different tools: the read started and finished while the first shell call was still running.
		expect(at(events, read!, "tool.started")).toBeLessThan(terminalAt(events, first!));
		expect(terminalAt(events, read!)).toBeLessThan(terminalAt(events, first!));
	});
});
