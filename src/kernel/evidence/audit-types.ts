/** Append-only audit records, chained by hash. */

export type AuditKind =
	| "session.started"
	| "session.ended"
	| "session.resumed"
	| "run.resolved"
	| "permission.decided"
	| "permission.confirmed"
	/** Who answered a durable ask, and with what (src/runtime/asks/ask-board.ts). */
	| "ask.answered"
	| "ask.expired"
	| "tool.invalid"
	| "tool.outcome"
	| "effect"
	| "budget.exhausted"
	| "authority.denied"
	/** A write or delete of a protected path that the call was not cleared for (src/kernel/protected/protected-guard.ts). */
	| "protected.denied"
	| "authority.used"
	| "approval.granted"
	| "approval.consumed"
	| "approval.invalid"
	| "approval.rule_added"
	| "approval.rule_revoked"
	/** One hook handler's run, with what it printed (src/runtime/hooks/session-hooks.ts). */
	| "hook.ran"
	| "subagent.started"
	| "subagent.completed"
	| "llm.complete"
	/** What one model call was sent: each message of the record verbatim, summarised or omitted (src/runtime/context/context-manifest.ts). */
	| "context.manifest"
	| "compaction.started"
	| "compaction.completed"
	| "compaction.failed"
	| "flow.decided"
	| "operation.settled"
	| "operation.abandoned"
	| "recovery.completed"
	| "store.lease_recovered"
	| "undo.completed"
	| "jit.registered"
	/** A skill loaded into the model's context by activate_skill (src/runtime/skills/session-skills.ts). */
	| "skill.activated"
	| "jit.syscall"
	| "jit.limit"
	/** MCP servers a session started, the tools offered and those withheld (src/runtime/mcp/mcp-session-tools.ts). */
	| "mcp.servers"
	| "mcp.tools_changed"
	| "mcp.elicitation"
	| "mcp.tool_approved"
	| "mcp.tool_revoked"
	/** An in-chat review of an MCP definition that pinned nothing: denied, stale, or nobody to ask. */
	| "mcp.definition_refused"
	/** Memory records a search handed back, with their labels (src/kernel/kernel-memory.ts). */
	| "memory.recalled"
	/** A memory record removed or marked stale by the host (`warden memory forget|stale`). */
	| "memory.forgotten"
	| "memory.stale";

/** What a caller appends; the store assigns seq, time, prev_hash and hash. */
export interface AuditInput {
	session: string;
	turn: number;
	kind: AuditKind;
	/** The tool call this record belongs to, if any. */
	call_id?: string;
	/** Already redacted, JSON-serializable details (decision, diff, command, exit code …). */
	data: Record<string, unknown>;
}

export interface AuditRecord extends AuditInput {
	/** 1-based position in the chain. */
	seq: number;
	time: string;
	/** Hash of the record before (64 zeros for the first). */
	prev_hash: string;
	/** sha256 over prev_hash and the canonical JSON of {seq, time, session, turn, kind, call_id, data}. */
	hash: string;
}

export type AuditVerifyResult =
	| { ok: true; checked: number }
	| { ok: false; checked: number; firstBad: { seq: number; reason: string } };
