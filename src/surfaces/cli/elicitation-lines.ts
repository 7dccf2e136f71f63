/** An MCP server's request for input as `warden asks list` shows it: its message and each field it asks for. */
import { visibleText } from "../../kernel/display/visible-text.js";
import type { PendingAsk } from "../../runtime/asks/ask-types.js";

/** A request for input as lines: every string the server wrote shown by the display rule. */
export function elicitationLines(a: PendingAsk, request: NonNullable<PendingAsk["elicitation"]>): string[] {
	const lines = [`${a.id}  elicitation from MCP server ${visibleText(request.server)}  (session ${a.session}${a.expires_at ? `, expires ${a.expires_at}` : ""})`];
	lines.push(`  asks: ${visibleText(request.message)}`);
	for (const f of request.fields) {
		const type = f.choices ? `${f.type === "string[]" ? "some of" : "one of"} ${f.choices.join(" | ")}` : f.type;
		lines.push(`  field ${visibleText(f.name)}: ${visibleText(type)}${f.required ? ", required" : ""}${f.default !== undefined ? `, default ${visibleText(JSON.stringify(f.default))}` : ""}${f.about ? ` — ${visibleText(f.about)}` : ""}`);
	}
	return lines;
}
