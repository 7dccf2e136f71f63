/**
 * The in-chat review of MCP definitions: before a turn's first model step, each tool, resource,
 * template or prompt a server lists that no human approved as it is (new, or changed since: a rug
 * pull) becomes an approval ask on the session's own ask path (the terminal's card, ACP's
 * session/request_permission, the console and `warden asks answer`; with no host, automation,
 * nothing is asked and nothing pinned). The ask shows what the review flagged first, then the full
 * definition or the diff from the pinned one, and is bound to the digest shown: an allow pins that
 * digest, as `warden mcp approve --digest` does, only if the server still lists it when the answer
 * lands. A deny, a stale answer or nobody to ask pins nothing and is recorded; each definition is
 * asked about once a session. "Reject always" keeps that digest refused in the store, so later
 * sessions withhold it without asking until someone approves it with `warden mcp approve`.
 */
import { randomUUID } from "node:crypto";
import type { Authority } from "../../kernel/authority/authority.js";
import type { ApprovalRequest } from "../../kernel/approval/approval-types.js";
import { argumentsDigest } from "../../kernel/approval/target-state.js";
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import { REVIEW_CALL_PREFIX } from "../../kernel/evidence/review-calls.js";
import { createHumanPrimitives } from "../../kernel/kernel-human.js";
import { definitionText, newDefinitionDiff } from "../../kernel/mcp/tool-definition.js";
import type { Store } from "../../store/store.js";
import { mcpToolName } from "../../tools/mcp-tool.js";
import type { SessionApprovals } from "../session-approvals.js";
import { readAnswer } from "../session-approvals.js";
import type { ConfirmCallback } from "../session-options.js";
import type { McpEntryReview } from "./mcp-entry-review.js";
import { pinDefinition } from "./mcp-pin-write.js";
import type { McpReviewed, McpSessionTools } from "./mcp-session-tools.js";

export interface DefinitionReviewDeps {
	mcp: McpSessionTools;
	recorder: EvidenceRecorder;
	approvals: SessionApprovals;
	authority: Authority;
	/** The host's confirm callback; absent (automation), nothing is asked. */
	confirm: ConfirmCallback | undefined;
	store: Store;
	workspace: string;
}

/** The read tool an entry is used through, as the ask names it. */
const ENTRY_TOOL: Readonly<Record<McpEntryReview["kind"], string>> = { prompt: "get_prompt", resource: "read_resource", "resource-template": "read_resource" };

/** The name the ask shows: the tool as the model would know it, or the read tool the entry is used through. */
function askedTool(review: McpReviewed): string {
	return "info" in review ? review.name : mcpToolName(review.server, ENTRY_TOOL[review.kind]);
}

/** Why it asks, flags first: what a person should read before the definition itself. */
export function reviewReason(review: McpReviewed): string {
	const flags = review.flags.map((f) => `FLAGGED ${f.rule}: ${f.field} ${f.says}`);
	const what = review.status === "changed"
		? `the definition of ${review.tool} on MCP server ${review.server} changed since it was approved (sha256 ${review.approvedDigest?.slice(0, 12)} → ${review.digest.slice(0, 12)})`
		: `MCP server ${review.server} lists ${review.tool}, never approved in this workspace (sha256 ${review.digest.slice(0, 12)})`;
	const meaning = "allowing pins exactly this definition for the workspace, as `warden mcp approve` does; denying keeps it withheld";
	return [...flags, `${what}: ${meaning}`].join("; ");
}

/** The request every surface shows: flags in the reason, the definition (or its diff) as the diff. */
export function reviewRequest(review: McpReviewed, session: string): ApprovalRequest {
	const args = { server: review.server, definition: review.tool, status: review.status, digest: review.digest };
	return {
		requestId: `approval_${randomUUID()}`,
		session,
		callId: `${REVIEW_CALL_PREFIX}mcp/${review.server}/${review.tool}@${review.digest.slice(0, 12)}`,
		tool: askedTool(review),
		resource: `mcp:${review.server}/${review.tool}`,
		arguments: args,
		argumentsDigest: argumentsDigest(args),
		targetDigest: review.digest,
		decision: { decision: "ask", layer: "mcp-pin", reason: reviewReason(review) },
		diff: review.diff ?? newDefinitionDiff(review.tool, definitionText(review.definition)),
	};
}

/** The review to run before each turn: every pending definition asked, in listing order. */
export function definitionReviewer(deps: DefinitionReviewDeps): (signal: AbortSignal) => Promise<void> {
	return async (signal) => {
		for (const review of deps.mcp.pending()) {
			if (signal.aborted) return;
			await reviewOne(deps, review, signal);
		}
	};
}

async function reviewOne(deps: DefinitionReviewDeps, review: McpReviewed, signal: AbortSignal): Promise<void> {
	const { recorder } = deps;
	const refused = (by: string, why: string, always?: true) =>
		recorder.audit("mcp.definition_refused", { server: review.server, tool: review.tool, status: review.status, digest: review.digest, by, why, ...(always ? { always } : {}) });
	// A definition refused for good is withheld without asking again; another digest of the same tool is a new question.
	const held = (await deps.store.mcpPins.refusals({ workspace: deps.workspace, server: review.server })).find((r) => r.tool === review.tool && r.digest === review.digest);
	if (held) {
		await refused(held.refused_by, `refused always at ${held.refused_at}: approve it with warden mcp approve`, true);
		return;
	}
	if (!deps.confirm) {
		await refused("no host to ask", "automation refuses asks: approve it with warden mcp approve");
		return;
	}
	const request = reviewRequest(review, recorder.session);
	const askAuthority = deps.authority.forCall({ approved: false });
	const human = createHumanPrimitives({ channel: "host", answer: deps.approvals.throughAsks(deps.confirm), authority: askAuthority });
	let answer: unknown;
	try {
		answer = await human.ask({ ...request }, signal);
	} catch (err) {
		for (const denied of askAuthority.refusals) await recorder.audit("authority.denied", denied.toRecord(), request.callId);
		await refused("host", signal.aborted ? "turn cancelled" : err instanceof Error ? err.message : String(err));
		return;
	}
	const response = readAnswer(answer);
	const by = response?.by ?? "host";
	if (response?.kind === "always_deny") {
		await deps.store.mcpPins.refuse({ workspace: deps.workspace, server: review.server, tool: review.tool, digest: review.digest, refused_at: new Date().toISOString(), refused_by: by });
		await refused(by, "denied always: later sessions withhold this definition without asking", true);
		return;
	}
	if (!response || (response.kind !== "allow_once" && response.kind !== "always_allow")) {
		await refused(by, "denied");
		return;
	}
	const outcome = await deps.mcp.approve(review, (current) =>
		pinDefinition({ store: deps.store, workspace: deps.workspace, by, audit: async (kind, data) => void (await recorder.audit(kind, data, request.callId)), context: { request: request.requestId } }, current),
	);
	if ("stale" in outcome) {
		await refused(by, outcome.stale === "absent" ? "stale: the server no longer lists it" : `stale: the server now lists sha256 ${outcome.stale}, not the ${review.digest} the answer saw`);
	} else if ("gone" in outcome) {
		await refused(by, outcome.gone);
	}
}
