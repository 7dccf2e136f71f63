/**
 * The conversation a resumed session continues: its stored messages (already redacted, so the
 * resumed model sees masks where secrets were) and the label each carried in the model's context.
 */
import { type Label, join, label } from "../kernel/flow/label.js";
import { INITIAL_CONTEXT } from "../kernel/flow/session-flow.js";
import type { Message } from "../models/provider.js";
import type { StoredMessage } from "../store/store.js";
import { RuntimeConfigError } from "./runtime-config-error.js";
import { toLabel } from "../kernel/evidence/store-rows.js";

export interface ResumedContext {
	history: Message[];
	/** The label of each message in `history` (same index). */
	labels: Label[];
	/** Where the session's context label starts: the join of every message's label. */
	context: Label;
	/** Messages stored without a label, counted as secret. */
	unlabeled: number;
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

export function resumedContext(session: string, stored: readonly StoredMessage[]): ResumedContext {
	const history: Message[] = [];
	const labels: Label[] = [];
	let unlabeled = 0;
	for (const row of stored) {
		history.push(checkedMessage(session, row));
		if (row.label) labels.push(toLabel(row.label));
		else {
			// Nothing says what it held: it counts as the most sensitive and least trusted content there is.
			unlabeled++;
			labels.push(label("secret", "untrusted", { kind: "system", ref: `message ${row.seq} of session ${session} stored without a label` }));
		}
	}
	return { history, labels, context: join(INITIAL_CONTEXT, ...labels), unlabeled };
}

function checkedMessage(session: string, row: StoredMessage): Message {
	const m = row.message as { role?: unknown; content?: unknown } | null;
	if (m === null || typeof m !== "object" || !ROLES.has(m.role as string) || typeof m.content !== "string") {
		throw new RuntimeConfigError(`session ${session}: stored message ${row.seq} is not a conversation message`);
	}
	return m as Message;
}
