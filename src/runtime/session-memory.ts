/**
 * A session's memory: the store's memory rows bound to the session's id and its workspace (the
 * project scope), what a recall leaves in the audit, and the embeddings model when the host
 * configured one (hybrid ranking). The kernel's memory primitives act through it.
 */
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
	};
}
