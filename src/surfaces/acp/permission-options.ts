/**
 * The four answers an ACP client offers for a tool call, and what each becomes in Warden's
 * approvals: allow_once is an exact one-use lease, the "always" answers persist an exact rule for
 * this workspace. An exact release of the flow plane is one payload to one sink, once: only the
 * two one-shot answers apply there.
 */
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import type { ApprovalAnswer } from "../../kernel/approval/approval-types.js";

interface OptionRow {
	option: PermissionOption;
	answer: ApprovalAnswer;
}

/** Who answered, as recorded on the approval and on any persisted rule. */
export const ACP_ANSWERER = "acp-client";

export const TOOL_OPTIONS: readonly OptionRow[] = [
	{ option: { optionId: "allow_once", name: "Allow once", kind: "allow_once" }, answer: { kind: "allow_once", by: ACP_ANSWERER } },
	{ option: { optionId: "allow_always", name: "Always allow exactly this", kind: "allow_always" }, answer: { kind: "always_allow", by: ACP_ANSWERER } },
	{ option: { optionId: "reject_once", name: "Reject", kind: "reject_once" }, answer: { kind: "deny", by: ACP_ANSWERER } },
	{ option: { optionId: "reject_always", name: "Always reject exactly this", kind: "reject_always" }, answer: { kind: "always_deny", by: ACP_ANSWERER } },
];

export const RELEASE_OPTIONS: readonly PermissionOption[] = [
	{ optionId: "allow_once", name: "Release this once", kind: "allow_once" },
	{ optionId: "reject_once", name: "Keep it", kind: "reject_once" },
];

/** The approval an outcome means; a cancelled request or an option we did not offer refuses. */
export function toolAnswer(outcome: RequestPermissionOutcome): ApprovalAnswer {
	if (outcome.outcome !== "selected") return false;
	return TOOL_OPTIONS.find((row) => row.option.optionId === outcome.optionId)?.answer ?? false;
}

/** True only for the release option itself. */
export function releaseAnswer(outcome: RequestPermissionOutcome): boolean {
	return outcome.outcome === "selected" && outcome.optionId === "allow_once";
}
