/**
 * An MCP server's request for input made a durable ask: another process's surface (the console,
 * `warden asks answer`) answers it through the store as it answers approvals — accepted content is
 * checked against the server's schema first, and reaches the server; a decline reaches it as one —
 * and the row keeps what was typed only until the session took it.
 */
import { readFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import { EVERYTHING_SERVER, nodeServer } from "../../providers/mcp/test-support/mcp-servers.js";
import type { McpElicitation } from "../../providers/mcp/mcp-types.js";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { approveMcpTools } from "../mcp/mcp-approvals.js";
import type { McpServerConfig } from "../mcp/mcp-server-config.js";
import { eventValidator, expectSoundEvidence } from "../test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { askQueueOver } from "./ask-queue.js";
import type { AnswerResult, AskQueue, ElicitReply, PendingAsk } from "./ask-types.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../../schemas/events.v1.json", import.meta.url), "utf8")) as object);
const TOOL = "trigger-elicitation-request";

let t: TestRuntime | undefined;
let other: SqliteStore | undefined;
afterEach(async () => {
	await other?.close();
	other = undefined;
	if (t) await closeTestRuntime(t);
	t = undefined;
});

async function setup() {
	t = await openTestRuntime("warden-elicit-asks-");
	const workspace = realpathSync(t.workspace);
	const everything: McpServerConfig = { name: "everything", transport: nodeServer(EVERYTHING_SERVER, ["stdio"], workspace), sandbox: false, source: "test" };
	await approveMcpTools({ store: t.runtime.store, workspace, home: homedir(), servers: [everything], server: "everything", tools: [TOOL], by: "test" });
	other = openSqliteStore(t.runtime.stateDir);
	return { runtime: t.runtime, workspace, everything, queue: askQueueOver(other.asks) };
}

/** A host surface that shows nothing and waits, so another surface's answer is the one that lands. */
const waiting = async (_request: McpElicitation, signal: AbortSignal) =>
	new Promise<{ action: "cancel" }>((resolve) => signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }));

/** Waits for the one pending ask, then gives `answer` its turn at it. */
function answerWhenPending(queue: AskQueue, answer: (ask: PendingAsk) => void): void {
	const tryAnswer = () => {
		const [pending] = queue.pending();
		if (!pending) return void setTimeout(tryAnswer, 20);
		answer(pending);
	};
	tryAnswer();
}

describe("an elicitation answered through the ask board", () => {
	it("another process accepts it with content that fits the schema (after one that does not); the server gets the content and the row forgets it", async () => {
		const { runtime, workspace, everything, queue } = await setup();
		const results: AnswerResult[] = [];
		let seen: PendingAsk | undefined;
		answerWhenPending(queue, (ask) => {
			seen = ask;
			results.push(queue.reply(ask.id, { action: "accept", content: { check: true } }, "console"));
			results.push(queue.reply(ask.id, { action: "accept", content: { name: "Ada Lovelace", check: true } }, "console"));
			results.push(queue.reply(ask.id, { action: "decline" }, "cli"));
		});
		const model = new RecordingModel([callsStep({ name: `mcp__everything__${TOOL}`, arguments: {} }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [everything], rules: { allow: ["mcp__everything__*"] }, elicit: waiting });
		await session.send("go");
		expect(seen).toMatchObject({ kind: "elicitation", resource: "mcp:everything", elicitation: { server: "everything", message: "Please provide inputs for the following fields:" } });
		expect(seen?.elicitation?.fields.find((f) => f.name === "name")).toMatchObject({ type: "string", required: true });
		expect(results[0]).toEqual({ ok: false, error: `ask ${seen?.id}: the content does not fit what the server asked for: name is required; nothing was sent, the ask is still open` });
		expect(results[1]).toEqual({ ok: true });
		expect(results[2]).toMatchObject({ ok: false, error: expect.stringContaining("was already answered (accept by console)") });
		expect(JSON.stringify(model.requests[1]!.at(-1))).toContain("Name: Ada Lovelace");
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.find((e) => e.kind === "ask.answered")?.payload).toMatchObject({ kind: "elicitation", answer: "accept", answered_by: "console" });
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.find((r) => r.kind === "mcp.elicitation")?.data).toMatchObject({ asked: true, action: "accept", fields: ["name", "check"] });
		expect(JSON.stringify(audit)).not.toContain("Ada Lovelace");
		expect(JSON.stringify(events)).not.toContain("Ada Lovelace");
		const row = other!.asks.get(seen!.id);
		expect(row).toMatchObject({ state: "answered", answer: "accept", answered_by: "console" });
		expect(row?.answer_content).toBeUndefined();
		await session.end();
	}, 60_000);

	it("another process declines it; the server is told the person declined", async () => {
		const { runtime, workspace, everything, queue } = await setup();
		answerWhenPending(queue, (ask) => expect(queue.reply(ask.id, { action: "decline" } satisfies ElicitReply, "cli")).toEqual({ ok: true }));
		const model = new RecordingModel([callsStep({ name: `mcp__everything__${TOOL}`, arguments: {} }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [everything], rules: { allow: ["mcp__everything__*"] }, elicit: waiting });
		await session.send("go");
		expect(JSON.stringify(model.requests[1]!.at(-1))).toMatch(/declined/);
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.find((r) => r.kind === "ask.answered")?.data).toMatchObject({ kind: "elicitation", answer: "decline", answered_by: "cli" });
		await session.end();
	}, 60_000);

	it("the host's own surface answers first: its content reaches the server and is never written to the row; an approval answer to it is refused", async () => {
		const { runtime, workspace, everything, queue } = await setup();
		const refused: AnswerResult[] = [];
		const model = new RecordingModel([callsStep({ name: `mcp__everything__${TOOL}`, arguments: {} }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({
			workspace,
			model,
			mcpServers: [everything],
			rules: { allow: ["mcp__everything__*"] },
			elicit: async () => {
				const [pending] = queue.pending();
				if (pending) refused.push(queue.answer(pending.id, "allow_once", "cli"));
				return { action: "accept", content: { name: "Grace Hopper" } };
			},
		});
		await session.send("go");
		expect(refused).toEqual([{ ok: false, error: expect.stringMatching(/is an MCP server's request for input: answer accept, decline, cancel$/) }]);
		expect(JSON.stringify(model.requests[1]!.at(-1))).toContain("Name: Grace Hopper");
		const answered = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "ask.answered");
		expect(answered?.data).toMatchObject({ answer: "accept", answered_by: "host" });
		const row = other!.asks.get(String(answered?.data.ask));
		expect(row?.answer_content).toBeUndefined();
		await session.end();
	}, 60_000);
});
