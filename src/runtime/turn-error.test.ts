import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkTraceInvariant } from "../kernel/evidence/trace-invariant.js";
import type { ModelProvider } from "../models/provider.js";
import { ScriptedModel } from "../models/scripted.js";
import { openSqliteStore } from "../kernel/evidence/store-rows.js";
import type { Store } from "../store/store.js";
import { Runtime } from "./runtime.js";

let root: string;
beforeEach(async () => {
	root = await mkdtemp(join(tmpdir(), "warden-turn-error-"));
	await mkdir(join(root, "ws"));
});
afterEach(async () => {
	await rm(root, { recursive: true, force: true });
});

/** A real SQLite store whose message persistence starts failing after `okMessages` writes. */
function storeFailingMessagesAfter(stateDir: string, okMessages: number): Store {
	const inner = openSqliteStore(stateDir);
	let written = 0;
	return new Proxy(inner, {
		get(target, prop, receiver) {
			if (prop === "appendMessage") {
				return async (session: string, message: unknown) => {
					written++;
					if (written > okMessages) throw new Error("disk went away while saving a message");
					return target.appendMessage(session, message);
				};
			}
			const value = Reflect.get(target, prop, receiver);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}

describe("a turn that fails inside", () => {
	it("ends with status error and a recorded turn.completed, so the evidence never shows a turn left open", async () => {
		const stateDir = join(root, "state");
		// The system prompt and the user message are saved; the assistant's tool-call message is not.
		const runtime = await Runtime.open({ stateDir, store: storeFailingMessagesAfter(stateDir, 2) });
		const plan = { steps: [{ tool_calls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "done" }] };
		const session = await runtime.openSession({ workspace: join(root, "ws"), model: ScriptedModel.fromPlan(plan, "scripted:t") });
		const result = await session.send("go");
		expect(result.status).toBe("error");
		expect(result.error).toBe("internal error: disk went away while saving a message");
		const events = await runtime.sessionEvents(session.id);
		expect(events.at(-1)?.kind).toBe("turn.completed");
		expect(checkTraceInvariant(events).ok).toBe(true);
		expect((await runtime.verifyAudit()).ok).toBe(true);
		await runtime.close();
	});

	it("a model that ignores its abort signal cannot hold the turn past the model timeout", async () => {
		const deaf: ModelProvider = { spec: "deaf:model", complete: () => new Promise(() => undefined) };
		const runtime = await Runtime.open({ stateDir: join(root, "state2") });
		const session = await runtime.openSession({ workspace: join(root, "ws"), model: deaf, modelTimeoutMs: 200 });
		const started = Date.now();
		const result = await session.send("hello?");
		expect(result.status).toBe("model_error");
		expect(result.error).toBe("model deaf:model did not answer within 200 ms");
		expect(Date.now() - started).toBeLessThan(10_000);
		await runtime.close();
	});
});
