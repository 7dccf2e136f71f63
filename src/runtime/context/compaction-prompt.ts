/** The words of a compaction: what the summarising call is asked, and how its answer is framed for the model. */

/** Appended after the turns to summarise, as the host's own request. */
export const COMPACTION_INSTRUCTION = [
	"Warden needs room in your context: the conversation above will be replaced by your summary of it.",
	"Write that summary now, in plain text, without calling any tool. Keep what the rest of the task needs:",
	"the user's requests and constraints, decisions made and why, files read or changed and what matters in them,",
	"commands run and their results, errors met, and what remains to do. Mention tool call ids (call_…) where a detail",
	"lives in a call's result, so it can be looked up again. Leave out greetings and anything already superseded.",
].join(" ");

/** How many covered call ids a summary names. */
export const CALL_IDS_SHOWN = 40;

export interface SummaryFrame {
	compaction: number;
	/** The refs the summary replaces, first and last (`m3`, `m17`), and how many. */
	first: string;
	last: string;
	count: number;
	callIds: readonly string[];
	todo?: string;
}

/** The message that stands in for the summarised turns: the model's summary between Warden's own framing. */
export function summaryMessage(summary: string, frame: SummaryFrame): string {
	const lines = [
		`[Context summary ${frame.compaction}, written by the model at Warden's request: it replaces ${frame.count} earlier item(s), ${frame.first} to ${frame.last}. The full record is kept as evidence.]`,
		summary.trim(),
	];
	if (frame.todo) lines.push("", frame.todo);
	if (frame.callIds.length > 0) {
		// The latest ones by name; the summary stays small however long the session grows, and the compaction records name the rest.
		const shown = frame.callIds.slice(-CALL_IDS_SHOWN);
		const earlier = frame.callIds.length - shown.length;
		lines.push("", `Tool calls covered (their results can be reviewed with \`warden explain <id>\`): ${shown.join(", ")}${earlier > 0 ? `, and ${earlier} earlier (listed in the compaction records)` : ""}`);
	}
	return lines.join("\n");
}
