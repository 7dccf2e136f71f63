/**
 * A session's memory: the store's memory rows bound to the session's id and its workspace (the
 * project scope), what a recall leaves in the audit, and the embeddings model when the host
 * configured one (hybrid ranking). The kernel's memory primitives act through it.
 */
import type { AnyWardenEvent, WardenEvent } from "../kernel/evidence/event-types.js";
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import { llmResource } from "../kernel/authority/resource.js";
import type { MemoryBinding, MemoryEmbedder } from "../kernel/kernel-memory.js";
import { type EmbeddingsEndpoint, fetchEmbeddings } from "../providers/embeddings-provider.js";
import type { MemoryRowStore } from "../store/memory-rows.js";

export interface SessionMemoryOptions {
	/** An OpenAI-compatible `/embeddings` endpoint: records and queries are embedded for hybrid ranking. */
	embeddings?: EmbeddingsEndpoint;
	/** Pins the clock (tests). */
	now?: () => Date;
}

/** The `llm:` resource an embeddings model is admitted as: `llm:embeddings/<model>`. */
export function embeddingsResource(model: string): string {
	return llmResource(`embeddings/${model}`);
}

export function embedderFor(endpoint: EmbeddingsEndpoint): MemoryEmbedder {
	return { model: endpoint.model, resource: embeddingsResource(endpoint.model), embed: (texts, signal) => fetchEmbeddings(endpoint, texts, signal) };
}

export function sessionMemory(rows: MemoryRowStore, recorder: EvidenceRecorder, workspace: string, options: SessionMemoryOptions = {}): MemoryBinding {
	return {
		rows,
		session: recorder.session,
		project: workspace,
		...(options.now ? { now: options.now } : {}),
		...(options.embeddings ? { embedder: embedderFor(options.embeddings) } : {}),
		recordRecall: async (callId, data) => {
			await recorder.audit("memory.recalled", data, callId);
		},
		// The effect's rows as the recorder would write them, committed by the store with the change itself.
		effectEvidence: (effect) => {
			const turn = recorder.currentTurn;
			const event = {
				kind: "effect.recorded",
				session: recorder.session,
				turn,
				time: new Date().toISOString(),
				payload: recorder.redacted({ call_id: effect.call_id, effect: effect.effect, resource: effect.resource, audit_seq: 0 }),
			} as WardenEvent<"effect.recorded">;
			return {
				audit: { session: recorder.session, turn, kind: "effect", call_id: effect.call_id, data: recorder.redacted({ effect: effect.effect, resource: effect.resource, ...effect.data }) },
				events: [event as AnyWardenEvent],
			};
		},
		effectCommitted: (evidence, committed) => {
			for (const event of evidence.events ?? []) {
				const payload = event.payload as { audit_seq?: number };
				if (payload.audit_seq === 0) payload.audit_seq = committed.audit.seq;
				recorder.relay(event as AnyWardenEvent);
			}
		},
	};
}
