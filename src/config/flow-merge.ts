/**
 * Merges the `flow:` sections of the layers, lowest precedence first. Sink rules are matched first
 * match wins, so a higher layer's rules go before a lower one's; secret files only ever add; the
 * highest layer that sets redact_model_context decides it.
 */
import type { SinkRule } from "../kernel/flow/flow-types.js";
import type { FlowConfigData, ResolvedFlow } from "./config-types.js";

export interface FlowLayer {
	flow: FlowConfigData | undefined;
	/** How the layer is named in explanations, e.g. `user config /x/config.yaml`. */
	source: string;
}

export function mergeFlow(layers: readonly FlowLayer[]): ResolvedFlow {
	const sinks: SinkRule[] = [];
	for (const { flow, source } of [...layers].reverse()) {
		for (const rule of flow?.sinks ?? []) sinks.push({ ...rule, source });
	}
	const secretFiles = [...new Set(layers.flatMap(({ flow }) => flow?.secret_files ?? []))];
	const resolved: ResolvedFlow = { sinks, secret_files: secretFiles };
	const redact = layers.findLast(({ flow }) => flow?.redact_model_context !== undefined)?.flow?.redact_model_context;
	if (redact !== undefined) resolved.redact_model_context = redact;
	return resolved;
}
