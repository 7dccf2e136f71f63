import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import type { ModelRequest, ModelResponse } from "../../models/provider.js";
import { ScriptedModel, type ScriptedStep } from "../../models/scripted.js";
import { eventValidator, expectSoundEvidence } from "../test-support/evidence-checks.js";
import { RecordingModel } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { COMPACTION_INSTRUCTION } from "./compaction-prompt.js";
import { explainModelCall } from "../explain-model.js";
import { type ContextManifest, expandRefs, unaccounted } from "./context-manifest.js";
import { ManifestReader } from "./context-manifest-delta.js";
import { MAX_COMPACTION_FAILURES } from "./context-keeper.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../../schemas/events.v1.json", import.meta.url), "utf8")) as object);
const open: TestRuntime[] = [];
afterEach(async () => {
	while (open.length) await closeTestRuntime(open.pop()!);
});

/** Ten files of ~2 KB each: reading them one per step fills a 4 000-token window twice over. */
const FILES = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`notes/f${i}.txt`, `${`file ${i} line\n`.repeat(150)}`]));

function readPlan(window: number) {
	return {
		context_window: window,
		steps: [...Object.keys(FILES).map((path, i) => ({ text: `reading ${i}`, tool_calls: [{ name: "read_file", arguments: { path } }] })), { text: "read them all" }],
	};
}

async function setup(files: Record<string, string> = FILES): Promise<TestRuntime> {
	const t = await openTestRuntime("warden-compaction-", { files });
	open.push(t);
	return t;
}

/** Each manifest whole, as explain reads it: a step's record may hold only what changed since the one before. */
function manifests(audit: readonly AuditRecord[], session: string, purpose?: ContextManifest["purpose"]): (ContextManifest & { digest: string; seq: number })[] {
	const reader = new ManifestReader(audit);
	return audit
		.filter((r) => r.session === session && r.kind === "context.manifest" && (purpose === undefined || r.data.purpose === purpose))
		.map((r) => {
			const read = reader.read(r);
			expect(read?.digest_ok, `manifest #${r.seq} reads back whole and checks`).toBe(true);
			return { ...read!, seq: r.seq };
		});
}

describe("compaction", () => {
	it("summarises the oldest turns twice in one turn, keeps every pin, and accounts for every message in each manifest", async () => {
		const t = await setup();
		const model = ScriptedModel.fromPlan(readPlan(4000), "scripted:read-plan");
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false });
		const events: AnyWardenEvent[] = [];
		const result = await session.send("read every file under notes/", { onEvent: (e) => events.push(e) });
		expect(result.status).toBe("completed");
		expect(result.text).toBe("read them all");
		const completed = events.filter((e) => e.kind === "compaction.completed");
		expect(completed.length).toBeGreaterThanOrEqual(2);
		for (const e of completed) if (e.kind === "compaction.completed") expect(e.payload.tokens_after).toBeLessThan(e.payload.tokens_before);

		const audit = await t.runtime.listAudit({ session: session.id });
		const stored = await t.runtime.store.listMessages(session.id);
		const turnManifests = manifests(audit, session.id, "turn");
		expect(turnManifests).toHaveLength(11);
		// Each manifest accounts for every message recorded before its call (the system prompt, the task, then two per step): none lost, none counted twice.
		for (const [i, m] of turnManifests.entries()) {
			const recorded = 2 + 2 * i;
			expect(unaccounted(m, recorded)).toEqual([]);
			const verbatim = m.items.filter((x) => x.disposition === "verbatim").map((x) => Number(x.ref.slice(1)));
			const covered = m.items.filter((x) => x.disposition === "summary").flatMap((x) => expandRefs(x.covers ?? ""));
			expect(verbatim.length + covered.length).toBe(recorded);
			expect(m.totals.summarised).toBe(covered.length);
			expect(m.tokens).toBeLessThanOrEqual(m.limit);
			// The pins: the system prompt first and the task, always verbatim.
			expect(m.items[0]).toMatchObject({ ref: "m1", role: "system", disposition: "verbatim" });
			expect(m.items.find((x) => x.ref === "m2")).toMatchObject({ role: "user", disposition: "verbatim", why: expect.stringContaining("current task") });
			// Each item's label is in the manifest's table.
			for (const x of m.items) expect(m.labels[x.label]).toMatchObject({ sensitivity: expect.any(String), integrity: expect.any(String) });
		}
		const last = turnManifests[turnManifests.length - 1]!;
		// The last call's manifest covers the whole record but the final answer (stored after it).
		expect(unaccounted(last, stored.length - 1)).toEqual([]);
		expect(last.totals.summary).toBe(1);
		// The manifest is as big as what was sent, not as the session: one summary stands for every older message.
		expect(last.items.length).toBeLessThan(stored.length / 2);
		// explain expands the summary through the compactions' records: every summarised message, with its label and its calls.
		const explained = explainModelCall(audit, "model_1_11", session.id);
		expect(explained.complete).toBe(true);
		expect(explained.summarised.length).toBe(last.totals.summarised);
		expect(explained.summarised.find((x) => x.ref === "m3")).toMatchObject({ role: "assistant", call_ids: ["call_1_1_1"], into: expect.stringMatching(/^summary 1 → (summary \d+ → )*summary \d+$/) });
		expect(explained.summarised.find((x) => x.ref === "m4")?.label.sources).toContainEqual(expect.objectContaining({ kind: "file", ref: "notes/f0.txt" }));

		// Every turn llm.complete carries the digest of a stored manifest and the context's size.
		const llm = audit.filter((r) => r.kind === "llm.complete");
		const digests = new Set(manifests(audit, session.id).map((m) => m.digest));
		for (const r of llm) expect(digests.has(r.data.manifest_digest as string)).toBe(true);
		const compactionCalls = llm.filter((r) => r.data.purpose === "compaction");
		expect(compactionCalls.length).toBe(completed.length);
		for (const r of compactionCalls) expect(r.data).toMatchObject({ outcome: "completed", flow: { decision: "allow" } });
		// The terminal's figures: every model.responded says how full the context was.
		const responded = events.filter((e) => e.kind === "model.responded");
		for (const e of responded) if (e.kind === "model.responded") expect(e.payload).toMatchObject({ context_window: 4000, context_tokens: expect.any(Number) });
		await session.end();
		// Every event, compaction's and the context figures included, is valid against the published schema; the audit chain verifies.
		await expectSoundEvidence(t.runtime, session.id, validate);
	});

	it("sends the summary in place of the old turns and keeps the system prompt, the instructions and the task verbatim", async () => {
		const t = await setup({ ...FILES, "AGENTS.md": "Use tabs.\n" });
		const turns: ModelResponse[] = Object.keys(FILES).slice(0, 6).map((path) => ({ text: "", toolCalls: [{ name: "read_file", arguments: { path } }] }));
		const model = new RecordingModel(turns);
		Object.assign(model, { contextWindow: 4000 });
		// Compaction requests are answered here; turn steps by the list.
		const compactionRequests: ModelRequest["messages"][] = [];
		const inner = model.complete.bind(model);
		model.complete = async (request, signal) => {
			if (request.purpose !== "compaction") return inner(request, signal);
			compactionRequests.push(structuredClone(request.messages));
			return { text: `SUMMARY ${compactionRequests.length}: the files read so far hold numbered lines`, toolCalls: [] };
		};
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: { trusted: true } });
		const result = await session.send("read six files");
		expect(result.status).toBe("completed");
		expect(compactionRequests.length).toBeGreaterThanOrEqual(1);
		// The summariser gets the same messages the provider already holds, then the instruction.
		const compactionRequest = compactionRequests[0]!;
		expect(compactionRequest[0]!.role).toBe("system");
		expect(compactionRequest[compactionRequest.length - 1]).toEqual({ role: "user", content: COMPACTION_INSTRUCTION });
		const prefix = JSON.stringify(compactionRequest.slice(0, -1));
		expect(model.requests.some((r) => JSON.stringify(r.slice(0, compactionRequest.length - 1)) === prefix)).toBe(true);
		const lastRequest = model.requests[model.requests.length - 1]!;
		expect(lastRequest[0]!.role).toBe("system");
		expect(lastRequest[1]).toMatchObject({ role: "system", content: expect.stringContaining("Use tabs.") });
		expect(lastRequest[2]!.content).toMatch(/^\[Context summary \d+/);
		expect(lastRequest[2]!.content).toContain("SUMMARY");
		expect(lastRequest[2]!.content).toContain("call_1_1_1");
		expect(lastRequest[3]).toMatchObject({ role: "user", content: "read six files" });
		// The evidence keeps every message: nothing was rewritten or dropped from the record.
		const stored = await t.runtime.store.listMessages(session.id);
		expect(stored.filter((m) => (m.message as { role: string }).role === "tool")).toHaveLength(6);
		await session.end();
	});

	it("keeps the latest todo list through compaction, word for word", async () => {
		const t = await setup();
		const model = ScriptedModel.fromPlan({ ...readPlan(4000), summaries: ["the model's own summary"] }, "scripted:todo");
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false });
		await t.runtime.store.appendEvent({
			kind: "todo.updated",
			session: session.id,
			turn: 0,
			time: new Date().toISOString(),
			payload: { items: [{ content: "read every note", status: "in_progress" }, { content: "report back", status: "pending" }] },
		} as unknown as AnyWardenEvent);
		await session.send("read every file under notes/");
		const audit = await t.runtime.listAudit({ session: session.id });
		const first = audit.find((r) => r.kind === "compaction.completed")!;
		expect(first.data.summary).toContain("the model's own summary");
		expect(first.data.summary).toContain("- [in_progress] read every note\n- [pending] report back");
		// Its position in the session's stream: after session.started.
		expect(first.data.todo_event).toBe(2);
		await session.end();
	});

	it("gives up after three failed compactions with a context_full turn, never a loop", async () => {
		const t = await setup();
		let compactionCalls = 0;
		const steps: ScriptedStep[] = readPlan(4000).steps;
		let step = 0;
		const model = {
			spec: "failing:summaries",
			locality: "in-process" as const,
			contextWindow: 4000,
			async complete(request: ModelRequest): Promise<ModelResponse> {
				if (request.purpose === "compaction") {
					compactionCalls++;
					throw new Error("summariser offline");
				}
				const s = steps[step++]!;
				return { text: s.text ?? "", toolCalls: (s.tool_calls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })) };
			},
		};
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false });
		const events: AnyWardenEvent[] = [];
		const result = await session.send("read every file under notes/", { onEvent: (e) => events.push(e) });
		expect(result.status).toBe("context_full");
		expect(result.error).toContain(`${MAX_COMPACTION_FAILURES} compactions in a row failed`);
		expect(compactionCalls).toBe(MAX_COMPACTION_FAILURES);
		const failed = events.filter((e) => e.kind === "compaction.failed");
		expect(failed.map((e) => (e.kind === "compaction.failed" ? [e.payload.failures, e.payload.gave_up] : []))).toEqual([
			[1, false],
			[2, false],
			[3, true],
		]);
		expect(failed[0]!.payload).toMatchObject({ error: expect.stringContaining("summariser offline") });
		const audit = await t.runtime.listAudit({ session: session.id });
		expect(audit.filter((r) => r.kind === "compaction.failed")).toHaveLength(3);
		expect(audit.filter((r) => r.kind === "llm.complete" && r.data.purpose === "compaction").map((r) => r.data.outcome)).toEqual(["failed", "failed", "failed"]);
		await session.end();
		await expectSoundEvidence(t.runtime, session.id, validate);
	});

	it("compacts on request between turns (the terminal's /compact), and refuses during a turn", async () => {
		const t = await setup();
		const model = ScriptedModel.fromPlan({ context_window: 100_000, steps: [{ tool_calls: [{ name: "read_file", arguments: { path: "notes/f0.txt" } }] }, { text: "done" }, { text: "nothing more" }] }, "scripted:big");
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false });
		await session.send("read f0");
		const running = session.send("another turn");
		await expect(session.compact()).rejects.toThrow("is running a turn");
		await running;
		const before = session.contextUsage()!;
		expect(before.window).toBe(100_000);
		const outcome = await session.compact();
		expect(outcome).toMatchObject({ ok: true, compaction: 1 });
		const after = session.contextUsage()!;
		expect(after.tokens).toBeLessThan(before.tokens);
		const audit = await t.runtime.listAudit({ session: session.id });
		expect(audit.find((r) => r.kind === "compaction.started")?.data.reason).toBe("requested");
		await session.end();
	});

	it("a resumed session starts from its full record, compacts again under numbers of its own, and still accounts for every message", async () => {
		const t = await setup();
		const first = await t.runtime.openSession({ workspace: t.workspace, model: ScriptedModel.fromPlan(readPlan(4000), "scripted:first"), instructions: false });
		await first.send("read every file under notes/");
		await first.end();
		const before = (await t.runtime.listAudit({ session: first.id })).filter((r) => r.kind === "compaction.completed").length;
		expect(before).toBeGreaterThanOrEqual(2);
		const resumed = await t.runtime.resumeSession(first.id, { model: ScriptedModel.fromPlan(readPlan(4000), "scripted:second"), instructions: false });
		const result = await resumed.send("and once more");
		expect(result.status).toBe("completed");
		await resumed.end();
		const audit = await t.runtime.listAudit({ session: first.id });
		const numbers = audit.filter((r) => r.kind === "compaction.started").map((r) => r.data.compaction);
		expect(numbers).toEqual(numbers.map((_, i) => i + 1));
		const stored = await t.runtime.store.listMessages(first.id);
		const last = manifests(audit, first.id, "turn").at(-1)!;
		expect(last.turn).toBe(2);
		expect(unaccounted(last, stored.length - 1)).toEqual([]);
		expect(explainModelCall(audit, `model_2_${last.step}`, first.id).complete).toBe(true);
	});

	it("past a window nobody stated, one step too big to compact is still sent; past a stated window the turn ends context_full at once", async () => {
		const t = await setup({ "big.txt": "y".repeat(60_000) });
		const plan = { steps: [{ tool_calls: [{ name: "read_file", arguments: { path: "big.txt" } }] }, { text: "read it" }] };
		const guessed = await t.runtime.openSession({ workspace: t.workspace, model: ScriptedModel.fromPlan(plan, "scripted:guess"), instructions: false, limits: { maxResultChars: 100_000 } });
		const events: AnyWardenEvent[] = [];
		expect((await guessed.send("read big.txt", { onEvent: (e) => events.push(e) })).status).toBe("completed");
		// Each try found nothing to summarise (the task and the one step are all there is): one per step, never more than three.
		const failed = events.filter((e) => e.kind === "compaction.failed");
		expect(failed.length).toBeGreaterThanOrEqual(1);
		expect(failed.length).toBeLessThanOrEqual(MAX_COMPACTION_FAILURES);
		await guessed.end();

		const stated = await t.runtime.openSession({ workspace: t.workspace, model: ScriptedModel.fromPlan({ context_window: 8192, ...plan }, "scripted:stated"), instructions: false, limits: { maxResultChars: 100_000 } });
		const result = await stated.send("read big.txt");
		expect(result.status).toBe("context_full");
		expect(result.error).toMatch(/^the context is full: the pinned messages and the last step alone need \d+ tokens of a 8192-token window/);
		await stated.end();
	});

	it("counts a budget refusal of the summarising call as the turn's own budget_exhausted", async () => {
		const t = await setup();
		const model = ScriptedModel.fromPlan(readPlan(4000), "scripted:budget");
		// With the built-in tools' schemas in every request (and not memory's), the window fills after three steps.
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false, budget: { model_calls: 3 }, memory: false });
		const result = await session.send("read every file under notes/");
		const audit = await t.runtime.listAudit({ session: session.id });
		expect(result.status).toBe("budget_exhausted");
		// The fourth call would have been the summary: refused before anything was sent, then the turn's own request meets the same limit.
		const failed = audit.find((r) => r.kind === "compaction.failed")!;
		expect(failed.data.error).toMatch(/^refused: .*model_calls/);
		expect(audit.filter((r) => r.kind === "llm.complete")).toHaveLength(3);
		expect(audit[audit.length - 1]!.kind).toBe("budget.exhausted");
		await session.end();
	});
});
