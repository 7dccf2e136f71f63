/**
 * The `hooks` block of the user and project configs (Claude Code's shape) as the handlers a
 * session runs. The user's hooks always run, as the user; a project's run only in a workspace the
 * user trusts — before that they are left out, with one note saying so (the CLI warns once).
 */
import { matcherProblem } from "../runtime/hooks/hook-matcher.js";
import { DEFAULT_HOOK_TIMEOUT_S, HOOK_EVENTS, type HookEvent, type HookHandler } from "../runtime/hooks/hook-types.js";
import type { ConfigLayer, IgnoredConfigItem } from "./config-types.js";

export interface HookCommandEntry {
	type: "command";
	command: string;
	/** Seconds. */
	timeout?: number;
}

export interface HookMatcherEntry {
	matcher?: string;
	hooks: HookCommandEntry[];
}

export type HooksBlock = Partial<Record<HookEvent, HookMatcherEntry[]>>;

/** The first matcher in `block` that is not a regular expression, as one line naming its field; undefined when all are. */
export function hooksProblem(block: HooksBlock): string | undefined {
	for (const event of HOOK_EVENTS) {
		for (const [i, entry] of (block[event] ?? []).entries()) {
			const problem = matcherProblem(entry.matcher ?? "");
			if (problem !== undefined) return `hooks.${event}[${i}].${problem}`;
		}
	}
	return undefined;
}

/** A layer's handlers, in the order the block lists them. */
export function layerHooks(layer: Pick<ConfigLayer, "name" | "source" | "data">): HookHandler[] {
	const block = layer.data.hooks ?? {};
	const origin = layer.name === "project" ? "project" : "user";
	return HOOK_EVENTS.flatMap((event) =>
		(block[event] ?? []).flatMap((entry, i) =>
			entry.hooks.map((h, k) => ({
				event,
				matcher: entry.matcher ?? "",
				command: h.command,
				timeoutMs: Math.ceil((h.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000),
				origin,
				source: `${layer.source}: hooks.${event}[${i}].hooks[${k}]`,
			})),
		),
	);
}

/**
 * Every layer's handlers, lowest layer first (all run; none replaces another). A project layer of
 * a workspace the user does not trust adds none, and one note in `ignored` says how many were left out.
 */
export function resolveHooks(files: readonly ConfigLayer[], trustedProject: boolean, workspace: string, ignored: IgnoredConfigItem[]): HookHandler[] {
	const handlers: HookHandler[] = [];
	for (const layer of files) {
		const own = layerHooks(layer);
		if (layer.name === "project" && !trustedProject) {
			if (own.length > 0) {
				ignored.push({
					item: `hooks (${own.length} handler${own.length === 1 ? "" : "s"})`,
					source: layer.source,
					why: `a project's hooks run only in a trusted workspace: the project ${workspace} is not in trusted_projects of the user config`,
				});
			}
			continue;
		}
		handlers.push(...own);
	}
	return handlers;
}
