/**
 * The OpenAI-compatible provider hears back the tool-call ids it issued (some providers validate
 * them; Mistral accepts only its own nine-character ids), while Warden's evidence keeps Warden's
 * own ids. The pairing lives in the stored messages, so it survives --resume.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenAICompatibleModel } from "../models/openai-compatible.js";
import { type FakeOpenAIServer, startFakeOpenAI } from "../models/test-support/openai-fake-server.js";
import type { Runtime } from "./runtime.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

let root: string;
let workspace: string;
let runtime: Runtime;
let server: FakeOpenAIServer | undefined;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-provider-ids-", { files: { "a.md": "alpha\n", "b.md": "beta\n" } }));
});
afterEach(async () => {
	await server?.close();
	server = undefined;
	await closeTestRuntime({ root, runtime });
});

type SentMessage = { role: string; tool_call_id?: string; tool_calls?: { id: string; function: { name: string } }[] };
const sentMessages = (s: FakeOpenAIServer, i: number) => (s.requests[i]!.body as { messages: SentMessage[] }).messages;
const model = (s: FakeOpenAIServer) => new OpenAICompatibleModel({ spec: "openai:fake", baseUrl: s.url, model: "fake" });

const readBoth = {
	tool_calls: [
		{ id: "aB3dE5fG7", name: "read_file", arguments: '{"path":"a.md"}' },
		{ id: "Zx9Yw8Vu7", name: "read_file", arguments: '{"path":"b.md"}' },
	],
};

describe("provider tool-call ids", () => {
	it("sends the provider's ids back in the next request; Warden's events keep call_<turn>_<step>_<n>", async () => {
		server = await startFakeOpenAI([readBoth, { text: "done" }]);
		const session = await runtime.openSession({ workspace, model: model(server) });
		expect((await session.send("read both")).status).toBe("completed");

		const second = sentMessages(server, 1);
		expect(second.find((m) => m.role === "assistant")?.tool_calls?.map((c) => c.id)).toEqual(["aB3dE5fG7", "Zx9Yw8Vu7"]);
		expect(second.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["aB3dE5fG7", "Zx9Yw8Vu7"]);

		const events = await runtime.sessionEvents(session.id);
		const ids = events.flatMap((e) => ((e.payload as { call_id?: string }).call_id === undefined ? [] : [(e.payload as { call_id: string }).call_id]));
		expect(new Set(ids)).toEqual(new Set(["call_1_1_1", "call_1_1_2"]));
		expect(JSON.stringify([events, await runtime.listAudit({ session: session.id })])).not.toMatch(/aB3dE5fG7|Zx9Yw8Vu7/);
		await session.end();
	});

	it("keeps the pairing across a resume: the stored messages carry the provider's ids", async () => {
		server = await startFakeOpenAI([readBoth, { text: "done" }, { text: "again" }]);
		const first = await runtime.openSession({ workspace, model: model(server) });
		await first.send("read both");
		await first.end();
		const stored = (await runtime.store.listMessages(first.id)).map((m) => m.message as { role: string; provider_call_id?: string; tool_calls?: { provider_id?: string }[] });
		expect(stored.filter((m) => m.role === "tool").map((m) => m.provider_call_id)).toEqual(["aB3dE5fG7", "Zx9Yw8Vu7"]);

		const resumed = await runtime.resumeSession(first.id, { model: model(server) });
		expect((await resumed.send("once more")).status).toBe("completed");
		const third = sentMessages(server, 2);
		expect(third.find((m) => m.role === "assistant" && m.tool_calls)?.tool_calls?.map((c) => c.id)).toEqual(["aB3dE5fG7", "Zx9Yw8Vu7"]);
		expect(third.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["aB3dE5fG7", "Zx9Yw8Vu7"]);
		await resumed.end();
	});

	it("uses Warden's ids for a response whose calls share one id (the fake server names an unnamed call call_fake_<n>)", async () => {
		server = await startFakeOpenAI([
			{ tool_calls: [{ name: "read_file", arguments: '{"path":"a.md"}' }] },
			{ tool_calls: [{ id: "same", name: "read_file", arguments: '{"path":"a.md"}' }, { id: "same", name: "read_file", arguments: '{"path":"b.md"}' }] },
			{ text: "done" },
		]);
		const session = await runtime.openSession({ workspace, model: model(server) });
		expect((await session.send("read")).status).toBe("completed");
		const last = sentMessages(server, 2);
		expect(last.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_fake_0", "call_1_2_1", "call_1_2_2"]);
		await session.end();
	});
});
