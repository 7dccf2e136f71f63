/**
 * Reads a replay file: the chain first, then the header's `replay_schema` picks the reader. Every
 * version ever written keeps its case here, so old files stay readable; an unknown version is refused.
 */
import { verifyChain } from "./replay-chain.js";
import { type FileItem, REPLAY_KIND, type Replay, ReplayError, type ReplayHeader, type ReplayItem } from "./replay-format.js";

export function readReplay(text: string): Replay {
	const records = verifyChain(text);
	const header = records[0]!;
	if (header.kind !== REPLAY_KIND) throw new ReplayError(`line 1 is not a Warden replay header (kind ${JSON.stringify(header.kind)})`);
	switch (header.replay_schema) {
		case 1:
			return readV1(records);
		default:
			throw new ReplayError(`replay schema version ${JSON.stringify(header.replay_schema)} is not supported (this Warden reads version 1)`);
	}
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function need(ok: boolean, line: number, what: string): void {
	if (!ok) throw new ReplayError(`replay file line ${line}: ${what}`);
}

const ITEM_TYPES = new Set(["input", "model", "decision", "effect", "file"]);

function readV1(records: Record<string, unknown>[]): Replay {
	const h = records[0]!;
	for (const key of ["session", "exported_at", "workspace", "mode", "model"]) need(typeof h[key] === "string", 1, `header.${key} must be a string`);
	need(isObject(h.options), 1, "header.options must be an object");
	const options = h.options as Record<string, unknown>;
	need(Array.isArray(options.rules) && Array.isArray(options.run_deny), 1, "header.options needs rules and run_deny lists");
	const header = h as unknown as ReplayHeader;
	const items: Replay["items"] = [];
	records.slice(1).forEach((record, i) => {
		const line = i + 2;
		need(typeof record.type === "string" && ITEM_TYPES.has(record.type), line, `unknown line type ${JSON.stringify(record.type)}`);
		if (record.type !== "file") need(Number.isInteger(record.turn), line, "turn must be an integer");
		switch (record.type) {
			case "input":
				need(typeof record.text === "string", line, "input.text must be a string");
				break;
			case "model": {
				const r = record.response;
				need(Number.isInteger(record.step), line, "model.step must be an integer");
				need(isObject(r) && typeof r.text === "string" && Array.isArray(r.toolCalls), line, "model.response needs text and toolCalls");
				for (const call of (r as { toolCalls: unknown[] }).toolCalls) need(isObject(call) && typeof call.name === "string", line, "each tool call needs a name");
				break;
			}
			case "decision":
				need(typeof record.call === "string" && typeof record.tool === "string" && typeof record.decision === "string", line, "decision needs call, tool and decision");
				break;
			case "effect":
				need(typeof record.call === "string" && typeof record.effect === "string" && typeof record.resource === "string", line, "effect needs call, effect and resource");
				break;
			case "file":
				checkFile(record, line);
				break;
		}
		items.push({ line, item: record as unknown as ReplayItem });
	});
	return { header, items };
}

function checkFile(record: Record<string, unknown>, line: number): void {
	const path = record.path;
	need(typeof path === "string" && path !== "", line, "file.path must be a non-empty string");
	// Restored under the copy's root: a path that could leave it is refused, whatever the chain says.
	const segments = (path as string).split("/");
	need(!(path as string).startsWith("/") && !segments.includes("..") && !(path as string).includes("\\") && !(path as string).includes("\0"), line, `file path ${JSON.stringify(path)} is not inside the workspace`);
	need(record.sha256 === null || typeof record.sha256 === "string", line, "file.sha256 must be a hash or null");
	need(record.end_sha256 === null || typeof record.end_sha256 === "string", line, "file.end_sha256 must be a hash or null");
	need(record.content_b64 === undefined || typeof record.content_b64 === "string", line, "file.content_b64 must be base64 text");
}

/** The file lines of a replay. */
export function replayFiles(replay: Replay): { line: number; item: FileItem }[] {
	return replay.items.filter((e): e is { line: number; item: FileItem } => e.item.type === "file");
}
