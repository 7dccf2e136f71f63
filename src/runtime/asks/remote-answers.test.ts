/**
 * A session's asks answered from another process's store (as the console or `warden asks answer`
 * would): the answer acts exactly as the same answer from the session's own prompt, an "always"
 * answer persists the same exact rule, and who answered is recorded.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { SqliteStore } from "../../store/sqlite-store.js";
import type { Runtime } from "../runtime.js";
import type { ConfirmationRequest } from "../session-options.js";
import { eventValidator, expectSoundEvidence } from "../test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "../test-support/test-runtime.js";
import { askQueueOver } from "./ask-queue.js";
import type { AskAnswer } from "./ask-types.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;
let other: SqliteStore;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-remote-asks-", { files: { "notes.md": "remember the milk\n" } }));
	other = openSqliteStore(runtime.stateDir);
});

afterEach(async () => {
	await other.close();
	await closeTestRuntime({ root, runtime });
});

const write = { name: "write_file", arguments: { path: "notes.md", content: "remember the bread\n" } };

/** A prompt that shows the request and waits: another surface answers it, as the console would. */
function answeredElsewhere(answer: AskAnswer, by: string) {
	const shown: ConfirmationRequest[] = [];
	const confirm = (request: ConfirmationRequest, signal: AbortSignal) =>
		new Promise<boolean>((resolve) => {
			shown.push(request);
			signal.addEventListener("abort", () => resolve(false));
			const queue = askQueueOver(other.asks);
			const tryAnswer = () => {
				const [pending] = queue.pending();
				if (!pending) return setImmediate(tryAnswer);
				expect(queue.answer(pending.id, answer, by)).toEqual({ ok: true });
			};
			tryAnswer();
		});
	return { shown, confirm };
}

async function runWrite(confirm: (r: ConfirmationRequest, s: AbortSignal) => Promise<boolean>) {
	const session = await runtime.openSession({ workspace, model: new RecordingModel([callsStep(write)]), confirm, rules: { ask: ["write_file(notes.md)"] } });
	const result = await session.send("go");
	const events = await expectSoundEvidence(runtime, session.id, validate);
	await session.end();
	return { id: session.id, result, events };
}

describe("asks answered by another surface", () => {
	it("an allow_always from the console lets the call run and persists the exact rule a terminal's always would, created by the console", async () => {
		const host = answeredElsewhere("allow_always", "console");
		const run = await runWrite(host.confirm);
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("remember the bread\n");
		expect(run.events.find((e) => e.kind === "ask.answered")?.payload).toMatchObject({ answer: "allow_always", answered_by: "console" });
		expect(run.events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: true, response: "always_allow", rule_ids: [1] });
		const [rule] = await runtime.store.listApprovedRules();
		expect(rule).toMatchObject({ tool: "write_file", pattern: "notes.md", outcome: "allow", created_by: "console", session: run.id });
		// The next identical call is decided by that rule, with nobody asked.
		const again = await runWrite(async () => {
			throw new Error("asked although an approved rule decides this call");
		});
		expect(again.events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "allow", rule: "write_file(notes.md)" });
	});

	it("a deny_always from the cli refuses the call and persists the exact deny rule", async () => {
		const run = await runWrite(answeredElsewhere("deny_always", "cli").confirm);
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("remember the milk\n");
		expect(run.events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: false, response: "always_deny" });
		expect(await runtime.store.listApprovedRules()).toMatchObject([{ pattern: "notes.md", outcome: "deny", created_by: "cli" }]);
		const audit = (await runtime.listAudit({ session: run.id })).filter((r) => r.kind === "ask.answered");
		expect(audit).toMatchObject([{ data: { answer: "deny_always", answered_by: "cli", tool: "write_file", resource: "notes.md" } }]);
	});
});
