/**
 * The model primitive, `llm.complete`: one request to the session's model, admitted as `egress` on
 * `llm:<profile>`, charged one model call and the tokens it reports, and recorded (spec, message
 * count, usage — never the messages themselves).
 *
 * The canonical profile is the model spec's provider and model, without anything local to the
 * host: `scripted` for every `scripted:<plan file>`, `openai/gpt-4o-mini` for `openai:gpt-4o-mini`,
 * `ollama/qwen2.5` for `ollama:qwen2.5`, `lmstudio/<model>` likewise, `llama/<file name less
 * .gguf>` for `llama:<path>`. A spec without a provider prefix is its own profile.
 */
import type { ModelProvider, ModelRequest, ModelResponse } from "../models/provider.js";
import type { CallAuthority } from "./authority/authority.js";
import { llmResource } from "./authority/resource.js";
import type { Budget } from "./budget/budget.js";
import type { FlowDecisionRecord } from "./flow/flow-types.js";

export function modelProfile(spec: string): string {
	const colon = spec.indexOf(":");
	if (colon < 0) return spec;
	const provider = spec.slice(0, colon);
	if (provider === "scripted") return "scripted";
	if (provider === "llama") return `llama/${spec.slice(colon + 1).trim().split(/[\\/]/).pop()!.replace(/\.gguf$/i, "")}`;
	return `${provider}/${spec.slice(colon + 1).trim()}`;
}

/** What one completed request leaves as evidence; linked to the turn, not to a tool call. */
export type LlmRecord = (data: Record<string, unknown>) => Promise<void>;

export interface LlmPrimitiveOptions {
	model: ModelProvider;
	authority: CallAuthority;
	/** Charged one model call before the request is sent and the reported tokens after. */
	budget: Budget;
	record: LlmRecord;
	/**
	 * Flow admission of the request: the context is data leaving for the provider's sink. Throws
	 * FlowDeniedError before anything is sent; its decision goes into the call's record.
	 */
	admitFlow?: (request: ModelRequest) => Promise<FlowDecisionRecord>;
}

export interface LlmCompleteOptions {
	signal: AbortSignal;
	/** Runs once the request is admitted and reserved, just before it is sent. */
	beforeSend?: () => Promise<void>;
	/** Waits for the provider's answer; lets the caller stop waiting on a provider that ignores its signal. */
	wait?: (answer: Promise<ModelResponse>, signal: AbortSignal) => Promise<ModelResponse>;
}

export interface LlmPrimitives {
	readonly profile: string;
	/** Throws CapabilityDeniedError or BudgetExhaustedError before anything is sent; otherwise the provider's answer or error. */
	complete(request: ModelRequest, opts: LlmCompleteOptions): Promise<ModelResponse>;
}

export function createLlmPrimitives(opts: LlmPrimitiveOptions): LlmPrimitives {
	const profile = modelProfile(opts.model.spec);
	const resource = llmResource(profile);
	return {
		profile,
		async complete(request, call) {
			opts.authority.admit([{ resource, right: "egress" }]);
			const flow = opts.admitFlow ? await opts.admitFlow(request) : undefined;
			// One call and an empty token envelope: usage is only known afterwards, and a counter
			// already over its limit refuses even that.
			const hold = opts.budget.reserveAll({ model_calls: 1, prompt_tokens: 0, completion_tokens: 0 });
			const record: Record<string, unknown> = { profile, spec: opts.model.spec, messages: request.messages.length, tools: request.tools.length };
			if (flow) record.flow = { sink: flow.sink, decision: flow.decision, label: flow.label, clearance: flow.clearance.rule };
			let response: ModelResponse;
			try {
				await call.beforeSend?.();
				const answer = opts.model.complete(request, call.signal);
				response = call.wait ? await call.wait(answer, call.signal) : await answer;
			} catch (err) {
				// The request may have been sent; what it used is unknown, so only the call itself is charged.
				hold.settle();
				await opts.record({ ...record, outcome: "failed" });
				throw err;
			}
			// Charged even past a limit (the tokens were spent); the next reservation then refuses.
			hold.settle({ prompt_tokens: response.usage?.prompt_tokens ?? 0, completion_tokens: response.usage?.completion_tokens ?? 0 });
			await opts.record({ ...record, outcome: "completed", tool_calls: response.toolCalls.length, ...(response.usage ? { usage: response.usage } : {}) });
			return response;
		},
	};
}
