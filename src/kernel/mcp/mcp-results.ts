/** What the MCP primitives do with what a server answers: the text kept within a byte cap, and what a failure is called in evidence. */
import { McpCancelledError, type McpContent, McpResultTooLargeError, McpServerGoneError, McpTimeoutError } from "../../providers/mcp/mcp-types.js";

/** Keeps at most `maxBytes` of text across the blocks, in order. */
export function capped(content: readonly McpContent[], maxBytes: number): { content: McpContent[]; truncated: boolean } {
	let room = maxBytes;
	let truncated = false;
	const kept: McpContent[] = [];
	for (const block of content) {
		if (block.type !== "text") {
			kept.push(block);
			continue;
		}
		const size = Buffer.byteLength(block.text, "utf8");
		if (size <= room) {
			kept.push(block);
			room -= size;
			continue;
		}
		truncated = true;
		if (room > 0) kept.push({ type: "text", text: Buffer.from(block.text, "utf8").subarray(0, room).toString("utf8").replace(/\uFFFD$/, "") });
		room = 0;
	}
	return { content: kept, truncated };
}

export function outcomeOf(err: unknown): string {
	if (err instanceof McpResultTooLargeError) return "too_large";
	if (err instanceof McpServerGoneError) return "server_gone";
	if (err instanceof McpTimeoutError) return "timed_out";
	if (err instanceof McpCancelledError) return "cancelled";
	return "failed";
}
