import { afterEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import { createRedactor } from "../../kernel/flow/redaction.js";
import type { AskStore } from "../../store/ask-rows.js";
import { tempStores } from "../../store/test-support/temp-stores.js";
import { AskBoard, type LocalSurface } from "./ask-board.js";
import type { AskContent } from "./ask-content.js";
import { askQueueOver } from "./ask-queue.js";
import { stateDirWake } from "../../store/store-wake.js";

const { tempDir, track } = tempStores("warden-ask-board-");
const wakes: { close(): void }[] = [];
afterEach(() => {
	for (const w of wakes.splice(0)) w.close();
});

const SECRET = "sk-live-abcdefghijklmnop1234";

const CONTENT: AskContent = {
	call_id: "call_1",
	kind: "approval",
	tool: "write_file",
	resource: "notes.md",
	arguments: { path: "notes.md", content: `token ${SECRET}\n` },
	reason: "asked by rule write_file(*)",
	always_rule: "write_file(notes.md)",
};

/** Two stores on one state dir, as two processes would hold it: the asker's and another surface's. */
function setup(timeoutMs?: number) {
	const dir = tempDir();
	const asker = track(openSqliteStore(dir));
	const other = track(openSqliteStore(dir));
	const events: AnyWardenEvent[] = [];
	const recorder = new EvidenceRecorder(asker, createRedactor({ env: { API_KEY: SECRET } }), "s1", (e) => events.push(e));
	const wake = stateDirWake(dir);
	wakes.push(wake);
	const board = new AskBoard({ rows: asker.asks, wake, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
	return { asker, other, recorder, board, events, queue: askQueueOver(other.asks) };
}

/** Waits, a turn of the event loop at a time, until the ask is pending where `rows` sees it. */
async function pendingId(rows: AskStore): Promise<string> {
	for (;;) {
		const [pending] = askQueueOver(rows).pending();
		if (pending) return pending.id;
		await new Promise((r) => setImmediate(r));
	}
}

/** A local prompt nobody answers: it gives up only when the board tells it to. */
const unanswered: LocalSurface = (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve({ answer: "deny", by: "terminal" })));

describe("the ask board", () => {
	it("takes an answer from another process, stops the local prompt, and records who answered", async () => {
		const { board, recorder, other, events, asker } = setup();
		let shown = false;
		let localStopped = false;
		const local: LocalSurface = (signal) =>
			new Promise((resolve) => {
				shown = true;
				signal.addEventListener("abort", () => {
					localStopped = true;
					resolve({ answer: "allow_once", by: "terminal" });
				});
			});
		const asked = board.ask(recorder, CONTENT, local, new AbortController().signal);
		const id = await pendingId(other.asks);
		while (!shown) await new Promise((r) => setImmediate(r));
		expect(askQueueOver(other.asks).answer(id, "deny", "cli")).toEqual({ ok: true });
		expect(await asked).toEqual({ settled: "answered", ask: id, answer: "deny", by: "cli" });
		expect(localStopped).toBe(true);
		expect(events.map((e) => e.kind)).toEqual(["ask.opened", "ask.answered"]);
		expect(events[1]?.payload).toEqual({ ask: id, call_id: "call_1", kind: "approval", answer: "deny", answered_by: "cli" });
		const audit = (await asker.listAudit()).filter((r) => r.kind === "ask.answered");
		expect(audit).toMatchObject([{ call_id: "call_1", data: { ask: id, answer: "deny", answered_by: "cli", tool: "write_file" } }]);
		// The answer stands: a second one is refused in one line.
		expect(askQueueOver(other.asks).answer(id, "allow_once", "console")).toEqual({ ok: false, error: `ask ${id} was already answered (deny by cli)` });
	});

	it("takes the local surface's answer when it comes first, and then refuses a late one from elsewhere", async () => {
		const { board, recorder, queue } = setup();
		const settled = await board.ask(recorder, CONTENT, async () => ({ answer: "allow_always", by: "terminal" }), new AbortController().signal);
		expect(settled).toMatchObject({ settled: "answered", answer: "allow_always", by: "terminal" });
		expect(queue.pending()).toEqual([]);
		expect(queue.answer(settled.ask, "deny", "cli")).toMatchObject({ ok: false, error: expect.stringContaining("was already answered (allow_always by terminal)") });
	});

	it("shows other surfaces the ask redacted: a secret in the arguments never reaches the row", async () => {
		const { board, recorder, queue, other } = setup();
		const asked = board.ask(recorder, CONTENT, unanswered, new AbortController().signal);
		await pendingId(other.asks);
		const [pending] = queue.pending();
		expect(JSON.stringify(pending?.arguments)).not.toContain(SECRET);
		expect(pending).toMatchObject({ session: "s1", call_id: "call_1", kind: "approval", tool: "write_file", resource: "notes.md", always_rule: "write_file(notes.md)" });
		expect(queue.answer(pending!.id, "deny", "console")).toEqual({ ok: true });
		expect(await asked).toMatchObject({ settled: "answered", by: "console" });
	});

	it("expires the ask when the turn is cancelled: an answer after that is refused and nothing lands", async () => {
		const { board, recorder, queue, events, other } = setup();
		const controller = new AbortController();
		const asked = board.ask(recorder, CONTENT, unanswered, controller.signal);
		await pendingId(other.asks);
		controller.abort();
		const settled = await asked;
		expect(settled).toMatchObject({ settled: "refused", why: "turn cancelled" });
		expect(events.map((e) => e.kind)).toEqual(["ask.opened", "ask.expired"]);
		expect(queue.answer(settled.ask, "allow_once", "cli")).toMatchObject({ ok: false, error: expect.stringContaining("has expired (turn cancelled)") });
	});

	it("expires the ask at its timeout and refuses the call", async () => {
		const { board, recorder, queue } = setup(50);
		const settled = await board.ask(recorder, CONTENT, unanswered, new AbortController().signal);
		expect(settled).toMatchObject({ settled: "refused", why: "no answer within 0 s" });
		expect(queue.answer(settled.ask, "allow_once", "cli")).toMatchObject({ ok: false, error: expect.stringContaining("has expired (no answer within 0 s)") });
	});

	it("expires the ask when the local surface fails, naming why in one line", async () => {
		const { board, recorder } = setup();
		const failing: LocalSurface = async () => {
			throw new Error("editor went away\nat somewhere");
		};
		expect(await board.ask(recorder, CONTENT, failing, new AbortController().signal)).toMatchObject({ settled: "refused", why: "confirmation failed: editor went away" });
	});
});

describe("the ask queue", () => {
	it("refuses an always-answer to an exact release, an unknown answer, an unknown id and a nameless answerer", async () => {
		const { board, recorder, queue, other } = setup();
		const release: AskContent = { ...CONTENT, kind: "release", tool: "net.fetch", resource: "net:example.com", release: { digest: "d".repeat(64), labels: ["secret"], sink: "net:example.com" } };
		const asked = board.ask(recorder, release, unanswered, new AbortController().signal);
		const id = await pendingId(other.asks);
		expect(queue.answer(id, "allow_always", "cli")).toEqual({ ok: false, error: `ask ${id} is an exact release (one payload, once): answer allow_once or deny` });
		expect(queue.answer(id, "maybe" as never, "cli")).toMatchObject({ ok: false, error: expect.stringContaining('unknown answer "maybe"') });
		expect(queue.answer(id, "deny", " ")).toEqual({ ok: false, error: "an answer must name who gave it (answered_by)" });
		expect(queue.answer("ask_nope", "deny", "cli")).toEqual({ ok: false, error: "unknown ask ask_nope" });
		expect(queue.answer(id, "allow_once", "console")).toEqual({ ok: true });
		expect(await asked).toMatchObject({ settled: "answered", answer: "allow_once", by: "console" });
	});
});
