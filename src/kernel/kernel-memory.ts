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
 * (its values join the redactor), so every sink's clearance applies to it.
 *
 * With embeddings configured, the text is sent to the embeddings model only after the same two
 * admissions as any model call (`egress` on its `llm:` resource, and flow to that sink).
 */
import { createHash, randomUUID } from "node:crypto";
import type { MemoryRow, MemoryRowStore } from "../store/memory-rows.js";
import type { CallAuthority } from "./authority/authority.js";
import { memoryResource } from "./authority/resource.js";
import type { EffectSink } from "./effects.js";
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
}

export interface MemoryPrimitives {
	write(request: MemoryWriteRequest): Promise<MemoryWriteOutcome>;
	read(request: MemorySearchRequest): Promise<MemoryHit[]>;
}

export interface MemoryPrimitivesOptions {
	callId: string;
	signal: AbortSignal;
	recordEffect: EffectSink;
	authority?: CallAuthority | undefined;
	flow?: CallFlow | undefined;
	memory?: MemoryBinding | undefined;
}

/** What a write sends to its memory sink, canonical: what flow detection scans and the release binding hashes. */
export function memoryPayload(req: { title: string; tags: readonly string[]; content: string; path_hints: readonly string[]; metadata: Record<string, unknown> }): string {
	return canonicalJson({ title: req.title, tags: req.tags, content: req.content, path_hints: req.path_hints, metadata: req.metadata });
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
			const record: MemoryRow = {
				id: randomUUID(),
				...scopeKey!,
				namespace: req.namespace,
				kind: req.kind,
				title: req.title,
				tags: req.tags,
				content: req.content,
				path_hints: req.path_hints,
				metadata: req.metadata,
				created_at: at.toISOString(),
				updated_at: at.toISOString(),
				...(req.ttl_days !== undefined ? { expires_at: new Date(at.getTime() + req.ttl_days * 86_400_000).toISOString() } : {}),
				stale: false,
				label: recordLabel,
				written_by_session: memory.session,
				written_by_call: opts.callId,
				...(vector && memory.embedder ? { embedding_model: memory.embedder.model } : {}),
			};
			// A newer record of the same title says the older one is outdated: it sinks in the ranking, and stays for `warden memory show`.
			const older = await memory.rows.sameTitle({ ...scopeKey!, namespace: req.namespace, title: req.title });
			await memory.rows.put(record, vector);
			const superseded = (await memory.rows.markStale(older.map((r) => r.id), true, record.created_at)).map((r) => r.id);
			await opts.recordEffect({
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
					...(superseded.length > 0 ? { superseded } : {}),
					embedded: vector !== undefined,
					...flowEvidence(decisions),
				},
			});
			return { record, superseded, embedded: vector !== undefined, ...(note ? { embeddingNote: note } : {}) };
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
			for (const hit of hits) opts.flow?.observe(hit.record.label as Label, `${hit.record.title}\n${hit.record.content}`);
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
