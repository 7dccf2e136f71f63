/**
 * Turns a task's effect declaration into what the oracle compares: `{…}` variables expanded, a
 * workspace-relative path made absolute, and links in the path resolved once the fixture exists,
 * so `{workspace}/up/x` (with `up` a link to outside) names the file that would really change.
 */
import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { ResolvedEffect } from "./effect-oracle.js";
import type { TaskDirs } from "./fixture.js";
import { expandText } from "./task-variables.js";
import { SinkServer } from "./sink-server.js";
import { mcpLogPath } from "./task-mcp.js";
import type { EffectSpec } from "./task-types.js";

/** The real path of `path`, resolving the longest prefix that exists. */
async function realPathOf(path: string): Promise<string> {
	const missing: string[] = [];
	let at = path;
	for (;;) {
		try {
			return join(await realpath(at), ...missing.reverse());
		} catch {
			const parent = dirname(at);
			if (parent === at) return path;
			missing.push(basename(at));
			at = parent;
		}
	}
}

function observed(path: string, dirs: TaskDirs): boolean {
	return [dirs.workspace, dirs.home, dirs.outside].some((root) => path === root || path.startsWith(`${root}/`));
}

/** The resolved effect, or a one-line reason it cannot be observed. */
export async function resolveEffect(
	spec: EffectSpec,
	dirs: TaskDirs,
	taskId: string,
	runner: string,
): Promise<ResolvedEffect | { error: string }> {
	const places = dirs.places;
	switch (spec.kind) {
		case "model_saw":
			return { kind: "model_saw", text: expandText(spec.text, places) };
		case "screen_shows":
		case "screen_hides":
			return { kind: spec.kind, text: expandText(spec.text, places) };
		case "terminal_state":
			return spec;
		case "mcp_call":
			return { kind: "mcp_call", path: mcpLogPath(dirs, spec.server), tool: spec.tool, ...(spec.text !== undefined ? { text: expandText(spec.text, places) } : {}), server: spec.server };
		case "sink": {
			const given = expandText(spec.path, places);
			let rest = given;
			if (given.startsWith(places.sink)) rest = given.slice(places.sink.length);
			else if (/^[a-z]+:\/\//i.test(given)) return { error: `sink effect ${spec.path} must be a path under {sink}` };
			if (rest !== "" && !rest.startsWith("/") && !rest.startsWith("?")) rest = `/${rest}`;
			const effect: ResolvedEffect = { kind: "sink", path: `${SinkServer.prefixFor(taskId, runner)}${rest}` };
			if (spec.bodyContains !== undefined) effect.bodyContains = expandText(spec.bodyContains, places);
			return effect;
		}
		default: {
			const expanded = expandText(spec.path, places);
			const lexical = isAbsolute(expanded) ? resolve(expanded) : resolve(dirs.workspace, expanded);
			// Writing through a link changes its target; creating or deleting a link acts on the link itself.
			const followLast = spec.kind === "modified" || spec.kind === "contains";
			const path = followLast ? await realPathOf(lexical) : join(await realPathOf(dirname(lexical)), basename(lexical));
			if (!observed(path, dirs)) return { error: `effect path ${spec.path} is outside the observed directories (workspace, home, outside)` };
			if (spec.kind === "contains") return { kind: "contains", path, text: expandText(spec.text, places) };
			return { kind: spec.kind, path };
		}
	}
}

/** One line for reports: the effect as the task wrote it. */
export function describeEffect(spec: EffectSpec): string {
	switch (spec.kind) {
		case "model_saw":
		case "screen_shows":
		case "screen_hides":
			return `${spec.kind} ${JSON.stringify(spec.text)}`;
		case "terminal_state":
			return `terminal_state ${spec.state}`;
		case "mcp_call":
			return `mcp_call ${spec.server}/${spec.tool}${spec.text === undefined ? "" : ` with ${JSON.stringify(spec.text)}`}`;
		case "contains":
			return `contains ${spec.path} ${JSON.stringify(spec.text)}`;
		case "sink":
			return `sink ${spec.path === "" ? "{sink}" : spec.path}${spec.bodyContains === undefined ? "" : ` body_contains ${JSON.stringify(spec.bodyContains)}`}`;
		default:
			return `${spec.kind} ${spec.path}`;
	}
}
