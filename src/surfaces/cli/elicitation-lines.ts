/** An MCP server's request for input as `warden asks list` shows it: its message and each field it asks for. */
import type { PendingAsk } from "../../runtime/asks/ask-types.js";

/**
 * A request for input as lines, before the display rule: `renderAsks` prints them through it (shown-lines.ts),
 * so every string the server wrote is spelled and none of its newlines starts a line.
 */
export function elicitationLines(a: PendingAsk, request: NonNullable<PendingAsk["elicitation"]>): string[] {
	const lines = [`${a.id}  elicitation from MCP server ${request.server}  (session ${a.session}${a.expires_at ? `, expires ${a.expires_at}` : ""})`];
	lines.push(`  asks: ${request.message}`);
	for (const f of request.fields) {
		const type = f.choices ? `${f.type === "string[]" ? "some of" : "one of"} ${f.choices.join(" | ")}` : f.type;
		lines.push(`  field ${f.name}: ${type}${f.required ? ", required" : ""}${f.default !== undefined ? `, default ${JSON.stringify(f.default)}` : ""}${f.about ? ` — ${f.about}` : ""}`);
	}
	return lines;
}
