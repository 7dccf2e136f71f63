/**
 * How a Warden tool call looks in an ACP client: its kind, a title naming exactly what it does, the
 * file it touches, and for writes the change as an ACP diff. One row per built-in tool; a tool
 * without a row (a JIT or MCP tool) is shown as `other` under its own name.
 */
import * as path from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";

type Args = Record<string, unknown>;

interface ToolView {
	kind: ToolKind;
	title(args: Args): string;
	/** The workspace-relative path it touches, if it names one. */
	path?(args: Args): string | undefined;
	/** The change it proposes, as old and new text (ACP's diff). */
	diff?(args: Args): { oldText: string | null; newText: string } | undefined;
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const pathArg = (args: Args) => (typeof args.path === "string" ? args.path : undefined);

export const TOOL_VIEWS: Readonly<Record<string, ToolView>> = {
	read_file: { kind: "read", title: (a) => `Read ${text(a.path)}`, path: pathArg },
	write_file: {
		kind: "edit",
		title: (a) => `Write ${text(a.path)}`,
		path: pathArg,
		diff: (a) => (typeof a.content === "string" ? { oldText: null, newText: a.content } : undefined),
	},
	edit_file: {
		kind: "edit",
		title: (a) => `Edit ${text(a.path)}`,
		path: pathArg,
		diff: (a) => (typeof a.old === "string" && typeof a.new === "string" ? { oldText: a.old, newText: a.new } : undefined),
	},
	list_dir: { kind: "read", title: (a) => `List ${text(a.path)}`, path: pathArg },
	glob: { kind: "search", title: (a) => `Find files ${text(a.pattern)}` },
	grep: { kind: "search", title: (a) => `Search ${JSON.stringify(text(a.pattern))}${typeof a.path === "string" ? ` in ${a.path}` : ""}` },
	shell: { kind: "execute", title: (a) => text(a.command) },
	web_fetch: { kind: "fetch", title: (a) => `Fetch ${text(a.url)}` },
	agent: { kind: "think", title: (a) => `Sub-agent: ${firstLine(text(a.task))}` },
	register_tool: { kind: "other", title: (a) => `Register tool ${text(a.name)}` },
	todo_write: { kind: "think", title: () => "Update the plan" },
	memory_search: { kind: "search", title: (a) => `Recall ${JSON.stringify(text(a.query))}` },
	memory_write: { kind: "other", title: (a) => `Remember ${JSON.stringify(text(a.title))}` },
};

export interface ToolCallView {
	title: string;
	kind: ToolKind;
	locations: ToolCallLocation[];
	/** The diff of a write, as ACP content; empty for calls that change no file. */
	content: ToolCallContent[];
}

/** The view of one call; `workspace` makes its path absolute, as ACP paths are. */
export function viewToolCall(tool: string, args: unknown, workspace: string): ToolCallView {
	const a: Args = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Args) : {};
	const view = TOOL_VIEWS[tool];
	if (!view) return { title: tool, kind: "other", locations: [], content: [] };
	const rel = view.path?.(a);
	const abs = rel === undefined ? undefined : path.resolve(workspace, rel);
	const change = abs === undefined ? undefined : view.diff?.(a);
	return {
		title: view.title(a),
		kind: view.kind,
		locations: abs === undefined ? [] : [{ path: abs }],
		content: change && abs !== undefined ? [{ type: "diff", path: abs, oldText: change.oldText, newText: change.newText }] : [],
	};
}

/** A text block as ACP tool-call content. */
export function textContent(value: string): ToolCallContent {
	return { type: "content", content: { type: "text", text: value } };
}

function firstLine(value: string): string {
	const line = value.split("\n")[0] ?? "";
	return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
