/**
 * The memory primitives, `memory.write` and `memory.read`, on `memory:<scope>/<namespace>`.
 *
 * A write is admitted as `write` on its resource and as a flow egress to it: the record's label is
 * the label of everything the call was proposed from (the model's context) joined with what
 * secret detection finds in the text, so a secret never enters memory unlabelled and a page read
 * from the web stays untrusted. The label is stored with the row. A read is admitted as `read` on
 * every scope it looks in, and each record it hands back joins the call's result label with the
 * label it was written with: recalled in any later session, an untrusted record is still untrusted
 * data, never an instruction or authority, and a secret one is as secret as the file it came from
 * (its values join the redactor: those at the offsets its writer stored, secret-spans.ts, and those
 * of the secret files its label names), so every sink's clearance applies to it.
 *
 * A change to memory and its evidence commit together: the record (with its label), what it marks
 * stale, its `effect` audit record and effect.recorded event are one transaction of the store, so
 * no record exists that the audit does not show, and no audit record names a write that did not
 * happen. `memory.forget` (what `warden undo` runs) removes a record, admitted as `delete` on its
 * resource, and marks live again the records the undone write superseded (`write` on theirs).
 *
 * With embeddings configured, the text is sent to the embeddings model only after the same two
 * admissions as any model call (`egress` on its `llm:` resource, and flow to that sink).
 */
import { createHash, randomUUID } from "node:crypto";
import type { MemoryCommitted, MemoryEvidence, MemoryRow, MemoryRowStore } from "../store/memory-rows.js";
import type { CallAuthority } from "./authority/authority.js";
import { memoryResource } from "./authority/resource.js";
import type { EffectRecord } from "./effects.js";
import { canonicalJson } from "./evidence/audit-chain.js";
import { flowEvidence } from "./flow/flow-evidence.js";
import type { CallFlow } from "./flow/flow-types.js";
import { type Label, label } from "./flow/label.js";
import { PrimitiveCancelledError } from "./kernel-errors.js";
import {
	checkSearch,
	checkWrite,
	type MemoryHit,
	MemoryPrimitiveError,
	type MemorySearchRequest,
	type MemoryWriteOutcome,
	type MemoryWriteRequest,
} from "./memory/memory-request.js";
import { rankMemory, scopeKeys } from "./memory/memory-search.js";
import { findSecretSpans, recordText, SECRET_SPANS_KEY, spanValues } from "./memory/secret-spans.js";

/** An embeddings model as the kernel sees it: its `llm:` resource, and the exchange itself. */
export interface MemoryEmbedder {
	model: string;
	/** `llm:embeddings/<model>`: what is admitted and what flow checks the text against. */
	resource: string;
	embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]>;
}

/** What the runtime binds memory to for a session. */
export interface MemoryBinding {
	rows: MemoryRowStore;
	session: string;
	/** The workspace's real path: the project scope's key. */
	project: string;
	now?: () => Date;
	embedder?: MemoryEmbedder;
	/** Records what a search handed back (audit `memory.recalled`). */
	recordRecall(callId: string, data: Record<string, unknown>): Promise<void>;
	/** An effect's audit record and effect.recorded event as rows (redacted, stamped with the session's turn), to commit with the change. */
	effectEvidence(effect: EffectRecord): MemoryEvidence;
	/** After that commit: hands the host the events it held, as committed. */
	effectCommitted(evidence: MemoryEvidence, committed: MemoryCommitted): void;
}

/** Forget one record; `restore` names records its write marked stale, to be marked live again. */
export interface MemoryForgetRequest {
	id: string;
	restore?: readonly string[];
}

export interface MemoryForgetOutcome {
	record: MemoryRow;
	/** Of `restore`, those marked live again (the others were gone, live, or outranked by a newer live record of their title). */
	restored: string[];
	/** The seq of the forget's `effect` audit record. */
	auditSeq: number;
}

export interface MemoryPrimitives {
	write(request: MemoryWriteRequest): Promise<MemoryWriteOutcome>;
	read(request: MemorySearchRequest): Promise<MemoryHit[]>;
	forget(request: MemoryForgetRequest): Promise<MemoryForgetOutcome>;
}

export interface MemoryPrimitivesOptions {
	callId: string;
	signal: AbortSignal;
	authority?: CallAuthority | undefined;
	flow?: CallFlow | undefined;
	memory?: MemoryBinding | undefined;
}

/** What a write sends to its memory sink, canonical: what flow detection scans and the release binding hashes. */
export function memoryPayload(req: { title: string; tags: readonly string[]; content: string; path_hints: readonly string[]; metadata: Record<string, unknown> }): string {
	return canonicalJson({ title: req.title, tags: req.tags, content: req.content, path_hints: req.path_hints, metadata: req.metadata });
}

/** Where a record is and how it is labelled, as evidence; its title only when it is not secret. */
function recordSummary(row: MemoryRow): Record<string, unknown> {
	return {
		id: row.id,
		kind: row.kind,
		scope: row.scope,
		namespace: row.namespace,
		...(row.label.sensitivity === "secret" ? {} : { title: row.title }),
		label: labelSummary(row.label as Label),
		written_by_session: row.written_by_session,
		...(row.written_by_call ? { written_by_call: row.written_by_call } : {}),
	};
}

/** The label levels and sources as evidence, never the text. */
function labelSummary(l: Label): Record<string, unknown> {
	return { sensitivity: l.sensitivity, integrity: l.integrity, sources: l.sources.slice(0, 4).map((s) => `${s.kind} ${s.ref}`) };
}

export function createMemoryPrimitives(opts: MemoryPrimitivesOptions): MemoryPrimitives {
	const binding = (what: string): MemoryBinding => {
		if (opts.signal.aborted) throw new PrimitiveCancelledError(`${what} cancelled before it started`);
		if (!opts.memory) throw new MemoryPrimitiveError(`${what} refused: this session keeps no memory`);
		return opts.memory;
	};

	/** The embedding of `text`, admitted as a model call; undefined (with why) when none is configured or the label keeps it here. */
	async function embed(memory: MemoryBinding, text: string, carries: Label): Promise<{ vector?: Float32Array; note?: string }> {
		const embedder = memory.embedder;
		if (!embedder) return { note: "no embeddings model is configured" };
		if (carries.sensitivity === "secret") return { note: "a secret is not sent to the embeddings model" };
		opts.authority?.admit([{ resource: embedder.resource, right: "egress" }]);
		if (!opts.flow) return { note: "no flow plane to admit the embedding request" };
		await opts.flow.admitEgress({ operation: "memory.embed", sinks: [embedder.resource], payload: text, label: carries });
		const [vector] = await embedder.embed([text], opts.signal);
		return vector ? { vector } : { note: "the embeddings model returned nothing" };
	}

	return {
		async write(request) {
			const memory = binding("memory.write");
			const req = checkWrite(request);
			const resource = memoryResource(req.scope, req.namespace);
			const payload = memoryPayload(req);
			opts.authority?.admit([{ resource, right: "write", bytes: Buffer.byteLength(payload, "utf8") }]);
			// Without the flow plane nothing could say what the record was written from: it is not written.
			if (!opts.flow) throw new MemoryPrimitiveError(`memory.write refused ${resource}: no flow plane to label the record`);
			const decisions = await opts.flow.admitEgress({ operation: "memory.write", sinks: [resource], payload });
			const recordLabel = decisions[0]?.label ?? label("secret", "untrusted", { kind: "system", ref: "memory.write without a decision" });
			const at = (memory.now ?? (() => new Date()))();
			const { vector, note } = await embed(memory, `${req.title}\n${req.content}`, recordLabel);
			const [scopeKey] = scopeKeys([req.scope], memory);
			// Which of the text's values this session knows to be secret (the secret files the label names
			// teach the redactor first, should this process not have read them): a later session is told
			// where they are, never what they are.
			const text = recordText(req);
			if (recordLabel.sensitivity === "secret") await opts.flow.learnSources(recordLabel);
			const spans = recordLabel.sensitivity === "secret" ? findSecretSpans(text, opts.flow.secretsIn(text)) : [];
			const { [SECRET_SPANS_KEY]: _claimed, ...metadata } = req.metadata;
			const record: MemoryRow = {
				id: randomUUID(),
				...scopeKey!,
				namespace: req.namespace,
				kind: req.kind,
				title: req.title,
				tags: req.tags,
				content: req.content,
				path_hints: req.path_hints,
				metadata: spans.length > 0 ? { ...metadata, [SECRET_SPANS_KEY]: spans } : metadata,
				created_at: at.toISOString(),
				updated_at: at.toISOString(),
				...(req.ttl_days !== undefined ? { expires_at: new Date(at.getTime() + req.ttl_days * 86_400_000).toISOString() } : {}),
				stale: false,
				label: recordLabel,
				written_by_session: memory.session,
				written_by_call: opts.callId,
				...(vector && memory.embedder ? { embedding_model: memory.embedder.model } : {}),
			};
			// A newer record of the same title says the older one is outdated: it sinks in the ranking, and
			// stays for `warden memory show`. The store marks it, in the write's own transaction.
			const effect: EffectRecord = {
				call_id: opts.callId,
				effect: "memory.write",
				resource,
				data: {
					id: record.id,
					kind: record.kind,
					title: record.title,
					bytes: Buffer.byteLength(payload, "utf8"),
					payload_sha256: createHash("sha256").update(payload).digest("hex"),
					label: labelSummary(recordLabel),
					...(record.expires_at ? { expires_at: record.expires_at } : {}),
					embedded: vector !== undefined,
					...flowEvidence(decisions),
				},
			};
			const evidence = memory.effectEvidence(effect);
			const committed = await memory.rows.commitWrite(record, vector, evidence);
			memory.effectCommitted(evidence, committed);
			const { superseded } = committed;
			return { record, superseded, embedded: vector !== undefined, ...(note ? { embeddingNote: note } : {}) };
		},

		async forget(request) {
			const memory = binding("memory.forget");
			if (typeof request.id !== "string" || request.id === "") throw new MemoryPrimitiveError("id must name a memory record");
			const restore = request.restore ?? [];
			if (!Array.isArray(restore) || restore.some((r) => typeof r !== "string")) throw new MemoryPrimitiveError("restore must be a list of memory record ids");
			const record = await memory.rows.get(request.id);
			if (!record) throw new MemoryPrimitiveError(`memory.forget refused ${request.id}: no such record (already forgotten)`);
			// A project's records are its own: an undo in one workspace never reaches another's.
			if (record.scope === "project" && record.scope_key !== memory.project) throw new MemoryPrimitiveError(`memory.forget refused ${record.id}: it belongs to project ${record.scope_key}, not ${memory.project}`);
			const resource = memoryResource(record.scope, record.namespace);
			const others = (await Promise.all(restore.map((id) => memory.rows.get(id)))).filter((r): r is MemoryRow => r !== undefined);
			opts.authority?.admit([{ resource, right: "delete" }, ...others.map((r) => ({ resource: memoryResource(r.scope, r.namespace), right: "write" as const }))]);
			if (opts.signal.aborted) throw new PrimitiveCancelledError("memory.forget cancelled before it started");
			const at = (memory.now ?? (() => new Date()))().toISOString();
			const evidence = memory.effectEvidence({ call_id: opts.callId, effect: "memory.forget", resource, data: recordSummary(record) });
			const committed = await memory.rows.commitForget(record.id, others.map((r) => r.id), at, evidence);
			memory.effectCommitted(evidence, committed);
			return { record, restored: committed.restored, auditSeq: committed.audit.seq };
		},

		async read(request) {
			const memory = binding("memory.read");
			const req = checkSearch(request);
			const namespace = req.namespace ?? "*";
			opts.authority?.admit(req.scopes.map((scope) => ({ resource: memoryResource(scope, namespace), right: "read" as const })));
			const queryLabel = opts.flow?.argumentsLabel ?? label("secret", "untrusted", { kind: "system", ref: "memory.read without a flow plane" });
			const { vector } = await embed(memory, req.query, queryLabel);
			const hits = await rankMemory(memory.rows, {
				query: req.query,
				scopes: scopeKeys(req.scopes, memory),
				...(req.namespace ? { namespaces: [req.namespace] } : {}),
				...(req.kind ? { kind: req.kind } : {}),
				paths: req.paths,
				limit: req.limit,
				includeStale: req.includeStale,
				now: (memory.now ?? (() => new Date()))(),
				...(vector ? { vector } : {}),
			});
			// What was written from untrusted or secret data comes back as exactly that.
			// A secret record's values join the redactor by where its writer said they were, by its lines,
			// and by the secret files its label names: this process may never have read them.
			for (const { record } of hits) {
				const text = recordText(record);
				opts.flow?.observe(record.label as Label, text, spanValues(text, record.metadata[SECRET_SPANS_KEY]));
				await opts.flow?.learnSources(record.label as Label);
			}
			await memory.recordRecall(opts.callId, {
				scopes: req.scopes,
				namespace,
				hits: hits.map((h) => ({ id: h.record.id, scope: h.record.scope, namespace: h.record.namespace, score: Number(h.score.total.toFixed(3)), label: labelSummary(h.record.label as Label) })),
				hybrid: vector !== undefined,
			});
			return hits;
		},
	};
}
