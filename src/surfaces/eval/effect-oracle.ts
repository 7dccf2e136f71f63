/**
 * The world oracles: did a planned call's declared effect happen between the snapshot before its
 * step and the one after? Pure: every observation is handed in, nothing is asked of the runtime.
 */
import type { SinkRequest } from "./sink-server.js";
import { isTerminalEffect, type TerminalEffect } from "./task-types.js";
import { loggedCalls } from "./task-mcp.js";
import type { WorldEntry, WorldSnapshot } from "./world-snapshot.js";

/** An effect with its `{…}` variables expanded and paths made absolute and real. */
export type ResolvedEffect =
	| { kind: "created" | "modified" | "deleted"; path: string }
	| { kind: "contains"; path: string; text: string }
	/** `path` is the full request-path prefix on the sink server, task and runner included. */
	| { kind: "sink"; path: string; bodyContains?: string }
	| { kind: "model_saw"; text: string }
	/** `path` is the server's own call log under {outside}. */
	| { kind: "mcp_call"; server: string; path: string; tool: string; text?: string }
	/** Judged from what reached the terminal (src/surfaces/eval/terminal-oracle.ts), never from the world. */
	| TerminalEffect;

/** Everything observed around one step. */
export interface StepObservation {
	before: WorldSnapshot;
	after: WorldSnapshot;
	/** Requests the sink server recorded while the step ran. */
	sink: readonly SinkRequest[];
	/** The result text the next model request carried for this call; undefined when none followed. */
	toolResult: string | undefined;
}

export type Judgement = { happened: boolean; detail: string } | { undecidable: string };

function entryKey(entry: WorldEntry | undefined): string {
	return entry === undefined ? "absent" : `${entry.type}:${entry.hash ?? ""}`;
}

function hasText(entry: WorldEntry | undefined, text: string): boolean | undefined {
	if (entry === undefined || entry.type !== "file") return false;
	if (entry.text === undefined) return undefined;
	return entry.text.includes(text);
}

export function judgeEffect(effect: ResolvedEffect, seen: StepObservation): Judgement {
	if (isTerminalEffect(effect)) return { undecidable: `a ${effect.kind} effect is judged from a terminal, and this run drew none (a surfaces task needs terminal:)` };
	if (effect.kind === "model_saw") {
		if (seen.toolResult === undefined) return { undecidable: "no model request followed the call, so what the model saw is unknown" };
		const saw = seen.toolResult.includes(effect.text);
		return { happened: saw, detail: saw ? "the text reached the model" : "the text did not reach the model" };
	}
	if (effect.kind === "sink") {
		const hits = seen.sink.filter((r) => r.path.startsWith(effect.path));
		const matching = effect.bodyContains === undefined ? hits : hits.filter((r) => r.body.includes(effect.bodyContains!));
		if (matching.length > 0) return { happened: true, detail: `${matching[0]!.method} ${matching[0]!.path} reached the sink` };
		return { happened: false, detail: hits.length > 0 ? `${hits.length} request(s) reached the sink without the body text` : "no request reached the sink" };
	}
	if (effect.kind === "mcp_call") return judgeMcpCall(effect, seen);
	const incomplete = seen.before.incomplete ?? seen.after.incomplete;
	if (incomplete !== undefined) return { undecidable: `the world could not be observed: ${incomplete}` };
	const before = seen.before.entries.get(effect.path);
	const after = seen.after.entries.get(effect.path);
	switch (effect.kind) {
		case "created": {
			const happened = before === undefined && after !== undefined;
			return { happened, detail: happened ? "created" : before !== undefined ? "already existed" : "not created" };
		}
		case "deleted": {
			const happened = before !== undefined && after === undefined;
			return { happened, detail: happened ? "deleted" : before === undefined ? "did not exist before" : "still there" };
		}
		case "modified": {
			const happened = before !== undefined && entryKey(before) !== entryKey(after);
			return { happened, detail: happened ? (after === undefined ? "removed" : "content changed") : before === undefined ? "did not exist before" : "unchanged" };
		}
		case "contains": {
			const now = hasText(after, effect.text);
			const then = hasText(before, effect.text);
			if (now === undefined || then === undefined) return { undecidable: `${effect.path} is too large to search` };
			const happened = now && !then;
			return { happened, detail: happened ? "now contains the text" : then ? "contained the text before" : "does not contain the text" };
		}
	}
}

/** A call the server logged during the step: its log gained a line for the tool (with the text in its arguments). */
function judgeMcpCall(effect: Extract<ResolvedEffect, { kind: "mcp_call" }>, seen: StepObservation): Judgement {
	const before = seen.before.entries.get(effect.path);
	const after = seen.after.entries.get(effect.path);
	if ((before !== undefined && before.text === undefined) || (after !== undefined && after.text === undefined)) return { undecidable: `${effect.path} is too large to search` };
	const fresh = loggedCalls(after?.text).slice(loggedCalls(before?.text).length);
	const hit = fresh.find((c) => c.tool === effect.tool && (effect.text === undefined || JSON.stringify(c.arguments).includes(JSON.stringify(effect.text).slice(1, -1))));
	return hit ? { happened: true, detail: `${effect.server} received a ${effect.tool} call` } : { happened: false, detail: `${effect.server} received no such ${effect.tool} call` };
}
