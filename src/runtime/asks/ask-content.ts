/**
 * What an ask shows any surface, built from the request the session made (an approval, an exact
 * release, or an MCP server's request for input), and the table between the surfaces' answers and the approval responses they mean.
 */
import type { ApprovalRequest, ApprovalResponseKind } from "../../kernel/approval/approval-types.js";
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import type { McpElicitation } from "../../providers/mcp/mcp-types.js";
import type { AskRow } from "../../store/ask-rows.js";
import { elicitFields } from "../mcp/elicit-questions.js";
import type { AskAnswer, ElicitAction, PendingAsk } from "./ask-types.js";

/** Everything of a PendingAsk but what the row itself assigns. */
export type AskContent = Omit<PendingAsk, "id" | "session" | "created_at">;

export const ASK_ANSWERS: readonly AskAnswer[] = ["allow_once", "allow_always", "deny", "deny_always"];

/** One row per answer: the approval response it is, whether it lets the call through, and whether a release may take it. */
export const ANSWER_MEANING: Readonly<Record<AskAnswer, { response: ApprovalResponseKind; allows: boolean; release: boolean }>> = {
	allow_once: { response: "allow_once", allows: true, release: true },
	allow_always: { response: "always_allow", allows: true, release: false },
	deny: { response: "deny", allows: false, release: true },
	deny_always: { response: "always_deny", allows: false, release: false },
};

/** The surfaces' word for an approval response. */
export function askAnswerOf(response: ApprovalResponseKind): AskAnswer {
	const found = ASK_ANSWERS.find((a) => ANSWER_MEANING[a].response === response);
	if (found === undefined) throw new Error(`no ask answer means ${response}`);
	return found;
}

export function isAskAnswer(value: unknown): value is AskAnswer {
	return ASK_ANSWERS.includes(value as AskAnswer);
}

export const ELICIT_ACTIONS: readonly ElicitAction[] = ["accept", "decline", "cancel"];

export function isElicitAction(value: unknown): value is ElicitAction {
	return ELICIT_ACTIONS.includes(value as ElicitAction);
}

/**
 * An MCP server's request for input: the server is the resource, its message the reason, and the
 * schema it asked with is kept whole, so every surface asks the same fields and the answer is
 * checked against exactly what was asked.
 */
export function elicitationAsk(request: McpElicitation, callId: string): AskContent {
	return {
		call_id: callId,
		kind: "elicitation",
		tool: "elicitation",
		resource: `mcp:${request.server}`,
		arguments: {},
		reason: request.message,
		elicitation: { server: request.server, message: request.message, requestedSchema: request.requestedSchema, fields: [] },
	};
}

/** An approval as every surface sees it: the same content the terminal's card shows. */
export function approvalAsk(request: ApprovalRequest): AskContent {
	const ask: AskContent = {
		call_id: request.callId,
		kind: "approval",
		tool: request.tool,
		resource: request.resource,
		arguments: request.arguments,
		reason: request.decision.reason,
	};
	if (request.diff !== undefined) ask.diff = request.diff;
	const allow = request.always?.allow;
	if (allow && "rules" in allow) ask.always_rule = allow.rules.join(", ");
	return ask;
}

/** An exact-release request: one payload, once, to one sink; the payload itself is shown only as its bounded, redacted preview. */
export function releaseAsk(request: ReleaseRequest): AskContent {
	return {
		call_id: request.call_id ?? request.id,
		kind: "release",
		tool: request.operation,
		resource: request.sink,
		arguments: { preview: request.preview },
		reason: request.why,
		release: { digest: request.payload_sha256, labels: [request.label.sensitivity, request.label.integrity, ...request.label.sources.map((s) => `${s.kind}:${s.ref}`)], sink: request.sink },
		expires_at: request.expires_at,
	};
}

/** A stored row as the console's PendingAsk. */
export function pendingAskOf(row: AskRow): PendingAsk {
	const body = row.body as Omit<AskContent, "call_id" | "kind" | "expires_at">;
	const ask: PendingAsk = {
		id: row.id,
		session: row.session,
		call_id: row.call_id,
		kind: row.kind === "release" || row.kind === "elicitation" ? row.kind : "approval",
		tool: body.tool,
		resource: body.resource,
		arguments: body.arguments,
		reason: body.reason,
		created_at: row.created_at,
	};
	if (body.diff !== undefined) ask.diff = body.diff;
	if (body.always_rule !== undefined) ask.always_rule = body.always_rule;
	if (body.release !== undefined) ask.release = body.release;
	// The fields are read from the schema as stored (redacted like all evidence), the same way for every surface.
	if (body.elicitation !== undefined) ask.elicitation = { ...body.elicitation, fields: elicitFields(body.elicitation.requestedSchema) };
	if (row.expires_at !== undefined) ask.expires_at = row.expires_at;
	return ask;
}

/** What the row keeps of an ask beyond its own columns. */
export function askBody(content: AskContent): Record<string, unknown> {
	const { call_id: _call, kind: _kind, expires_at: _expires, ...body } = content;
	// Fields are derived from the schema when the row is read; the row keeps only what the server sent.
	if (body.elicitation !== undefined) {
		const { fields: _fields, ...elicitation } = body.elicitation;
		return { ...body, elicitation };
	}
	return body;
}
