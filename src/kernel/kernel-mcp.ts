/**
 * The MCP primitive, `mcp.call`: one tools/call on a configured server, admitted as `exec` on
 * `mcp:<server>/<tool>`, its arguments admitted by the flow plane with the server as the sink
 * (untrusted, clearing at most `internal`, unless a host sink rule says otherwise), its response
 * charged to `bytes_read`, and recorded before it returns. Once the call was sent, a failure (the
 * server went away, timed out, or the call was cancelled) settles the operation as `unknown`: the
 * server may have acted on it. What comes back is the server's word: labelled untrusted, and
 * labelled by the files the arguments name (mcp/argument-paths.ts), so a secret file read through
 * a filesystem server is secret in the session as it would be read with read_file.
 */
import { createHash } from "node:crypto";
import { McpCancelledError, McpConnectError, McpResultTooLargeError, type McpCallResult, type McpContent, type McpListEntry, type McpReadRequest, type McpReadResult, McpServerGoneError, McpTimeoutError } from "../providers/mcp/mcp-types.js";
import type { CallAuthority } from "./authority/authority.js";
import { mcpResource } from "./authority/resource.js";
import type { Budget, Reservation } from "./budget/budget.js";
import type { EffectSink } from "./effects.js";
import { canonicalJson } from "./evidence/audit-chain.js";
import { flowEvidence } from "./flow/flow-evidence.js";
import type { CallFlow, FlowDecisionRecord } from "./flow/flow-types.js";
import { label } from "./flow/label.js";
import { PrimitiveCancelledError } from "./kernel-errors.js";
import { createMcpRead, type McpReadOutcome } from "./kernel-mcp-read.js";
import type { McpListMethod } from "./mcp/entry-definition.js";
import { observeNamedFiles } from "./mcp/argument-labels.js";
import { capped, outcomeOf } from "./mcp/mcp-results.js";
import { type OperationLog, runProtected } from "./operations/protected-operation.js";
import type { WorkspaceRoot } from "./workspace-paths.js";

export type { McpContent };

/** The connected servers, by configured name: what the kernel dispatches a call to. */
export interface McpRouter {
	callTool(server: string, tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpCallResult>;
	/** Resources and prompts; a router without it serves tools only. */
	read?(server: string, request: McpReadRequest, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpReadResult>;
	/**
	 * The host's pins of resource and prompt definitions: for each entry of a listing, why its
	 * definition may not be shown or used (never approved, or changed since), or undefined when it is
	 * approved. A router without it pins nothing.
	 */
	unapproved?(server: string, method: McpListMethod, entries: readonly McpListEntry[]): Promise<(string | undefined)[]>;
}

export interface McpCallRequest {
	server: string;
	tool: string;
	arguments: Record<string, unknown>;
	/** Default DEFAULT_MCP_CALL_TIMEOUT_MS. */
	timeoutMs?: number;
	/** Text kept from the result, in bytes; the rest is dropped. Default DEFAULT_MCP_MAX_BYTES. */
	maxBytes?: number;
	/** Top-level arguments the tool's schema marks as paths (argument-paths.ts schemaPathKeys), beside those named like one. */
	pathKeys?: readonly string[];
}

export interface McpCallOutcome {
	content: McpContent[];
	/** The server said the tool failed (a result with isError). */
	isError: boolean;
	/** Bytes of the result as it arrived. */
	bytes: number;
	/** True when text beyond maxBytes was dropped. */
	truncated: boolean;
}

export interface McpPrimitives {
	call(request: McpCallRequest): Promise<McpCallOutcome>;
	/** List or read a server's resources, list or get its prompts (src/kernel/kernel-mcp-read.ts). */
	read(request: McpReadRequestOf): Promise<McpReadOutcome>;
}

/** A read request for one server, with the call's limits. */
export interface McpReadRequestOf {
	server: string;
	request: McpReadRequest;
	timeoutMs?: number;
	maxBytes?: number;
}

export interface McpPrimitivesOptions {
	callId: string;
	signal: AbortSignal;
	recordEffect: EffectSink;
	budget?: Budget | undefined;
	authority?: CallAuthority | undefined;
	flow?: CallFlow | undefined;
	operations?: OperationLog | undefined;
	servers?: McpRouter | undefined;
	/** The workspace: arguments that name files in it label the result by them. */
	root?: (() => Promise<WorkspaceRoot>) | undefined;
}

export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_MCP_MAX_BYTES = 1024 * 1024;

/** A call the kernel will not send, or one that failed after it was sent. */
export class McpPrimitiveError extends Error {
	override name = "McpPrimitiveError";
}

export function createMcpPrimitives(opts: McpPrimitivesOptions): McpPrimitives {
	return {
		read: createMcpRead(opts),
		async call(request): Promise<McpCallOutcome> {
			const { server, tool } = request;
			const resource = mcpResource(server, tool);
			const timeoutMs = request.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
			const maxBytes = request.maxBytes ?? DEFAULT_MCP_MAX_BYTES;
			if (!(timeoutMs > 0) || !Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new McpPrimitiveError("mcp.call needs a positive timeoutMs and a non-negative integer maxBytes");
			if (opts.signal.aborted) throw new PrimitiveCancelledError(`call of ${resource} cancelled before it started`);
			if (!opts.servers) throw new McpPrimitiveError(`mcp.call refused ${resource}: no MCP server is connected to this session`);
			if (!opts.authority) throw new McpPrimitiveError(`mcp.call refused ${resource}: the kernel has no authority to admit it`);
			opts.authority.admit([{ resource, right: "exec" }]);
			// Everything in the arguments leaves for the server.
			const payload = canonicalJson({ server, tool, arguments: request.arguments });
			const flow: FlowDecisionRecord[] = opts.flow ? await opts.flow.admitEgress({ operation: "mcp.call", sinks: [resource], payload }) : [];
			const held = opts.budget?.reserve("bytes_read", maxBytes);
			const argumentsSha256 = createHash("sha256").update(payload).digest("hex");
			const record = { server, tool, arguments_sha256: argumentsSha256, request_bytes: Buffer.byteLength(payload, "utf8"), ...flowEvidence(flow) };
			const started = Date.now();
			const servers = opts.servers;
			let result: McpCallResult;
			try {
				result = await runProtected(opts.operations, opts.recordEffect, {
					kind: "mcp.call",
					callId: opts.callId,
					resource,
					intent: { server, tool, arguments_sha256: argumentsSha256 },
					reserved: { bytes_read: maxBytes },
					revalidate: () => {
						if (opts.signal.aborted) throw new PrimitiveCancelledError(`call of ${resource} cancelled before it started`);
					},
					dispatch: () => servers.callTool(server, tool, request.arguments, { signal: opts.signal, timeoutMs }),
					// Sent: whatever went wrong after, the server may have acted on it.
					errored: (err) => ({
						state: "unknown",
						effect: { ...record, outcome: outcomeOf(err), response_bytes: 0, truncated: false, duration_ms: Date.now() - started, error: err instanceof Error ? err.message : String(err) },
					}),
					settled: (r) => ({
						state: "committed",
						outcome: { is_error: r.isError },
						effect: { ...record, outcome: "completed", is_error: r.isError, response_bytes: r.bytes, truncated: r.bytes > maxBytes, duration_ms: Date.now() - started },
					}),
				});
			} catch (err) {
				throw failedExchange(err, held, `call of ${resource}`, "the call");
			}
			held?.settle(Math.min(result.bytes, maxBytes));
			const kept = capped(result.content, maxBytes);
			// The server's word: untrusted, and no more public than the workspace.
			const text = kept.content.map((b) => (b.type === "text" ? b.text : b.summary)).join("\n");
			opts.flow?.observe(label("internal", "untrusted", { kind: "url", ref: resource }), text);
			if (opts.flow && opts.root) await observeNamedFiles(opts.flow, request.arguments, request.pathKeys ?? [], await opts.root(), text);
			return { content: kept.content, isError: result.isError, bytes: result.bytes, truncated: kept.truncated };
		},
	};
}

/**
 * What a failed MCP exchange becomes at the primitive: a cancel before sending gives the reserved
 * bytes back; anything after settles them, and a request that may have reached the server says its
 * outcome is unknown.
 */
export function failedExchange(err: unknown, held: Reservation | undefined, what: string, request: string): unknown {
	if (err instanceof PrimitiveCancelledError) {
		held?.release();
		return err;
	}
	held?.settle();
	if (err instanceof McpCancelledError) return new PrimitiveCancelledError(`${what} cancelled; whether the server acted on it is unknown`);
	// It answered, so it acted on the request; only what it answered is lost.
	if (err instanceof McpResultTooLargeError) return new McpPrimitiveError(`${err.message}; the server did act on ${request}`);
	if (err instanceof McpServerGoneError || err instanceof McpTimeoutError || err instanceof McpConnectError) {
		return new McpPrimitiveError(`${err.message}; whether it acted on ${request} is unknown`);
	}
	return err;
}
