/**
 * What one handler's exit and output mean, per event (Claude Code's contract): exit 2 blocks with
 * stderr as the reason; exit 0 may print a JSON object (`decision`, `reason`,
 * `hookSpecificOutput.permissionDecision`, `additionalContext`, `updatedInput`); any other exit is a
 * failure. Where a failure may let an effect through (PreToolUse), it fails closed.
 */
import type { HookProcessResult } from "../../providers/hook-process.js";
import type { HookEvent, HookRun, HookVerdict } from "./hook-types.js";

interface EventContract {
	/** A handler that fails or times out counts as a block: nothing it guarded happens. */
	failClosed: boolean;
	/** Plain (non-JSON) stdout on exit 0 is context for the model, as Claude Code takes it for these events. */
	plainStdoutIsContext: boolean;
	/** Exit 2 (or `decision: block`) stops what the event is about. */
	canBlock: boolean;
}

export const EVENT_CONTRACTS: Record<HookEvent, EventContract> = {
	PreToolUse: { failClosed: true, plainStdoutIsContext: false, canBlock: true },
	PostToolUse: { failClosed: false, plainStdoutIsContext: false, canBlock: true },
	PostToolUseFailure: { failClosed: false, plainStdoutIsContext: false, canBlock: false },
	UserPromptSubmit: { failClosed: false, plainStdoutIsContext: true, canBlock: true },
	Stop: { failClosed: false, plainStdoutIsContext: false, canBlock: true },
	SubagentStart: { failClosed: false, plainStdoutIsContext: false, canBlock: false },
	SubagentStop: { failClosed: false, plainStdoutIsContext: false, canBlock: true },
	PreCompact: { failClosed: false, plainStdoutIsContext: false, canBlock: false },
	SessionStart: { failClosed: false, plainStdoutIsContext: true, canBlock: false },
	SessionEnd: { failClosed: false, plainStdoutIsContext: false, canBlock: false },
	Notification: { failClosed: false, plainStdoutIsContext: false, canBlock: false },
};

const PERMISSION_DECISIONS: Record<string, HookVerdict> = { allow: "allow", ask: "ask", deny: "deny" };
/** The older top-level `decision` field PreToolUse hooks still print. */
const LEGACY_DECISIONS: Record<string, HookVerdict> = { approve: "allow", block: "deny" };

type Parsed = Pick<HookRun, "verdict" | "reason" | "additionalContext" | "updatedInput">;

function oneLine(text: string, max = 500): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > max ? `${line.slice(0, max)}…` : line;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Recorded as failed for every event; only a fail-closed event's caller turns it into a refusal. */
function failed(why: string): Parsed {
	return { verdict: "failed", reason: why };
}

/** The JSON object a handler printed on exit 0, read for its event. */
function fromJson(event: HookEvent, out: Record<string, unknown>): Parsed {
	const specific = isObject(out.hookSpecificOutput) ? out.hookSpecificOutput : {};
	const parsed: Parsed = { verdict: "none" };
	const context = specific.additionalContext ?? out.additionalContext;
	if (typeof context === "string" && context !== "") parsed.additionalContext = context;
	const reasonOf = (...fields: unknown[]) => fields.find((f): f is string => typeof f === "string" && f !== "");
	if (event === "PreToolUse") {
		const decision = specific.permissionDecision ?? out.decision;
		if (decision !== undefined) {
			const verdict = typeof decision === "string" ? (PERMISSION_DECISIONS[decision] ?? LEGACY_DECISIONS[decision]) : undefined;
			if (verdict === undefined) return { verdict: "failed", reason: `permissionDecision must be allow, ask or deny, got ${JSON.stringify(decision)}` };
			parsed.verdict = verdict;
		}
		const reason = reasonOf(specific.permissionDecisionReason, out.reason, out.stopReason);
		if (reason !== undefined) parsed.reason = oneLine(reason);
		if (specific.updatedInput !== undefined) {
			if (!isObject(specific.updatedInput)) return { verdict: "failed", reason: "updatedInput must be a JSON object (the whole new input)" };
			parsed.updatedInput = specific.updatedInput;
		}
	} else if (EVENT_CONTRACTS[event].canBlock && out.decision === "block") {
		parsed.verdict = "block";
		parsed.reason = oneLine(reasonOf(out.reason, out.stopReason) ?? "blocked by a hook");
	}
	// `continue: false` stops the agent in Claude Code; here it can only stop what the event can stop.
	if (out.continue === false && parsed.verdict !== "deny") {
		const reason = oneLine(reasonOf(out.stopReason, out.reason) ?? "the hook said not to continue");
		if (event === "PreToolUse") return { ...parsed, verdict: "deny", reason };
		if (EVENT_CONTRACTS[event].canBlock) return { ...parsed, verdict: "block", reason };
	}
	return parsed;
}

/** The verdict and payload of one finished handler process. */
export function parseHookResult(event: HookEvent, result: HookProcessResult, timeoutMs: number): Parsed {
	if (result.spawnError !== undefined) return failed(`the hook could not be started: ${oneLine(result.spawnError)}`);
	if (result.cancelled) return failed("the hook was stopped: the turn was cancelled");
	if (result.timedOut) return failed(`the hook did not finish within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`} and was killed`);
	if (result.exitCode === 2) {
		const why = oneLine(result.stderr) || "blocked by a hook (exit 2)";
		return EVENT_CONTRACTS[event].canBlock ? { verdict: event === "PreToolUse" ? "deny" : "block", reason: why } : { verdict: "none", reason: why };
	}
	if (result.exitCode !== 0) {
		const detail = oneLine(result.stderr);
		return failed(`the hook ${result.exitCode === null ? `was killed by ${result.signal ?? "a signal"}` : `exited ${result.exitCode}`}${detail ? `: ${detail}` : ""}`);
	}
	const text = result.stdout.trim();
	if (text === "") return { verdict: "none" };
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch {
		data = undefined;
	}
	if (isObject(data)) return fromJson(event, data);
	if (EVENT_CONTRACTS[event].plainStdoutIsContext) return { verdict: "none", additionalContext: text };
	// A PreToolUse hook's answer that cannot be read is no answer to let a call through on.
	if (EVENT_CONTRACTS[event].failClosed) return { verdict: "failed", reason: `the hook printed something that is not a JSON object: ${oneLine(text, 120)}` };
	return { verdict: "none" };
}
