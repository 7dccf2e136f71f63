/**
 * The read half of the MCP primitive: list a server's resources (and resource templates), read one
 * resource, list its prompts, get one prompt. Each is admitted as `read` on its own resource
 * (`mcp:<server>/resources`, `mcp:<server>/resource:<uri>`, `mcp:<server>/prompts`,
 * `mcp:<server>/prompt:<name>`), what it sends (a URI, a prompt's arguments) admitted by the flow
 * plane with that resource as the sink, its answer charged to `bytes_read` and recorded as an
 * `mcp.call` operation before it returns: a read is a request the server may act on, so once sent
 * a failure leaves it `unknown`, as a tool call's does. What comes back is the server's word,
 * labelled untrusted. A listing is server metadata on its way to the model: an entry whose text
 * carries instruction-like or hidden content (the same rows that flag tool definitions) reaches the
 * model by name only, its description withheld and the flags said. The host pins entries'
 * definitions as it pins tools (src/kernel/mcp/entry-definition.ts): an entry whose definition was
 * never approved, or changed since, is listed by name only too, and a read or prompt request that
 * uses such a definition is refused before anything is sent (the server is asked for its current
 * listing first, so a definition changed behind the host's back is caught at the request).
 */
import { createHash } from "node:crypto";
import type { McpContent, McpListEntry, McpReadRequest, McpReadResult } from "../providers/mcp/mcp-types.js";
import { canonicalJson } from "./evidence/audit-chain.js";
import { flowEvidence } from "./flow/flow-evidence.js";
import type { FlowDecisionRecord } from "./flow/flow-types.js";
import { label } from "./flow/label.js";
import { PrimitiveCancelledError } from "./kernel-errors.js";
import { DEFAULT_MCP_CALL_TIMEOUT_MS, DEFAULT_MCP_MAX_BYTES, failedExchange, McpPrimitiveError, type McpPrimitivesOptions, type McpReadRequestOf, type McpRouter } from "./kernel-mcp.js";
import { definingEntries, definingListing } from "./mcp/entry-definition.js";
import { definitionFlags } from "./mcp/description-flags.js";
import { observeNamedFiles } from "./mcp/argument-labels.js";
import { capped, outcomeOf } from "./mcp/mcp-results.js";
import { runProtected } from "./operations/protected-operation.js";

/** A listed entry whose text was flagged: shown by name, its description withheld. */
export interface McpWithheldEntry {
	name: string;
	flags: string[];
}

/** A listed entry whose definition the host has not approved as it is: shown by name only. */
export interface McpUnapprovedEntry {
	name: string;
	why: string;
}

export interface McpReadOutcome {
	/** A listing, its flagged entries reduced to name and URI. */
	entries?: McpListEntry[];
	withheld: McpWithheldEntry[];
	/** Entries whose definitions are not approved (new, or changed since approval). */
	unapproved: McpUnapprovedEntry[];
	/** A resource's contents or a prompt's messages. */
	content?: McpContent[];
	bytes: number;
	truncated: boolean;
}

/** The resource a read request is admitted on. */
export function mcpReadResource(server: string, request: McpReadRequest): string {
	switch (request.method) {
		case "resources/list":
			return `mcp:${server}/resources`;
		case "resources/read":
			return `mcp:${server}/resource:${request.uri}`;
		case "prompts/list":
			return `mcp:${server}/prompts`;
		case "prompts/get":
			return `mcp:${server}/prompt:${request.name}`;
	}
}

/** Characters a reader cannot see, written out, so a withheld entry's name shows what it holds. */
function visible(text: string): string {
	return text.replace(/[^\x20-\x7E\u00A0-\u02FF\u0370-\u1FFF\u2010-\u205F\u20A0-\u2BFF\u3000-\uD7FF\uF900-\uFDFF\uFE30-\uFEFE\uFF00-\uFFEF]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

function reviewed(entries: readonly McpListEntry[], verdicts: readonly (string | undefined)[] = []): { entries: McpListEntry[]; withheld: McpWithheldEntry[]; unapproved: McpUnapprovedEntry[] } {
	const withheld: McpWithheldEntry[] = [];
	const unapproved: McpUnapprovedEntry[] = [];
	const kept = entries.map((entry, i) => {
		const flags = [...new Set(definitionFlags({ ...entry }).map((f) => f.rule))];
		const why = verdicts[i];
		if (flags.length === 0 && why === undefined) return entry;
		if (flags.length > 0) withheld.push({ name: visible(entry.name), flags });
		if (why !== undefined) unapproved.push({ name: visible(entry.name), why });
		return {
			name: visible(entry.name),
			...(entry.uri !== undefined ? { uri: visible(entry.uri) } : {}),
			...(entry.uriTemplate !== undefined ? { uriTemplate: visible(entry.uriTemplate) } : {}),
			...(entry.arguments ? { arguments: entry.arguments.map((a) => ({ name: visible(a.name), ...(a.required !== undefined ? { required: a.required } : {}) })) } : {}),
		};
	});
	return { entries: kept, withheld, unapproved };
}

/** Keeps the entries whose JSON fits in `maxBytes`, in order. */
function cappedEntries(entries: readonly McpListEntry[], maxBytes: number): { entries: McpListEntry[]; truncated: boolean } {
	let room = maxBytes;
	const kept: McpListEntry[] = [];
	for (const entry of entries) {
		const size = Buffer.byteLength(JSON.stringify(entry), "utf8");
		if (size > room) return { entries: kept, truncated: true };
		kept.push(entry);
		room -= size;
	}
	return { entries: kept, truncated: false };
}

/** The text of a read's outcome as the flow plane observes it (what the model will be shown). */
function observedText(outcome: McpReadOutcome): string {
	if (outcome.content) return outcome.content.map((b) => (b.type === "text" ? b.text : b.summary)).join("\n");
	return JSON.stringify(outcome.entries ?? []);
}

export function createMcpRead(opts: McpPrimitivesOptions): (read: McpReadRequestOf) => Promise<McpReadOutcome> {
	return async ({ server, request, ...limits }) => {
		const resource = mcpReadResource(server, request);
		const timeoutMs = limits.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
		const maxBytes = limits.maxBytes ?? DEFAULT_MCP_MAX_BYTES;
		if (!(timeoutMs > 0) || !Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new McpPrimitiveError("mcp.read needs a positive timeoutMs and a non-negative integer maxBytes");
		if (opts.signal.aborted) throw new PrimitiveCancelledError(`read of ${resource} cancelled before it started`);
		const servers = opts.servers;
		if (!servers?.read) throw new McpPrimitiveError(`mcp.read refused ${resource}: no MCP server is connected to this session`);
		if (!opts.authority) throw new McpPrimitiveError(`mcp.read refused ${resource}: the kernel has no authority to admit it`);
		opts.authority.admit([{ resource, right: "read" }]);
		await admitDefinition(servers, server, request, resource, timeoutMs, opts.signal);
		// What the request carries leaves for the server: a URI, a prompt's name and arguments.
		const payload = canonicalJson({ server, ...request });
		const flow: FlowDecisionRecord[] = opts.flow ? await opts.flow.admitEgress({ operation: "mcp.call", sinks: [resource], payload }) : [];
		const held = opts.budget?.reserve("bytes_read", maxBytes);
		const requestSha256 = createHash("sha256").update(payload).digest("hex");
		const record = { server, method: request.method, arguments_sha256: requestSha256, request_bytes: Buffer.byteLength(payload, "utf8"), ...flowEvidence(flow) };
		const started = Date.now();
		let result: McpReadResult;
		try {
			result = await runProtected(opts.operations, opts.recordEffect, {
				kind: "mcp.call",
				callId: opts.callId,
				resource,
				intent: { server, method: request.method, arguments_sha256: requestSha256 },
				reserved: { bytes_read: maxBytes },
				revalidate: () => {
					if (opts.signal.aborted) throw new PrimitiveCancelledError(`read of ${resource} cancelled before it started`);
				},
				dispatch: () => servers.read!(server, request, { signal: opts.signal, timeoutMs }),
				errored: (err) => ({
					state: "unknown",
					effect: { ...record, outcome: outcomeOf(err), response_bytes: 0, truncated: false, duration_ms: Date.now() - started, error: err instanceof Error ? err.message : String(err) },
				}),
				settled: (r) => {
					const flagged = r.kind === "list" ? reviewed(r.entries).withheld : [];
					return {
						state: "committed",
						outcome: { is_error: false },
						effect: { ...record, outcome: "completed", response_bytes: r.bytes, truncated: r.bytes > maxBytes, duration_ms: Date.now() - started, ...(flagged.length ? { withheld: flagged } : {}) },
					};
				},
			});
		} catch (err) {
			throw failedExchange(err, held, `read of ${resource}`, "the request");
		}
		held?.settle(Math.min(result.bytes, maxBytes));
		let outcome: McpReadOutcome;
		if (result.kind === "list") {
			const method = request.method === "prompts/list" ? "prompts/list" : "resources/list";
			const verdicts = servers.unapproved ? await servers.unapproved(server, method, result.entries) : [];
			const { entries, withheld, unapproved } = reviewed(result.entries, verdicts);
			const kept = cappedEntries(entries, maxBytes);
			outcome = { entries: kept.entries, withheld, unapproved, bytes: result.bytes, truncated: kept.truncated };
		} else {
			const kept = capped(result.content, maxBytes);
			outcome = { content: kept.content, withheld: [], unapproved: [], bytes: result.bytes, truncated: kept.truncated };
		}
		// The server's word: untrusted, and no more public than the workspace.
		const text = observedText(outcome);
		opts.flow?.observe(label("internal", "untrusted", { kind: "url", ref: resource }), text);
		// A `file:` URI or a prompt argument that names a file labels what comes back, as a tool call's does.
		if (opts.flow && opts.root) await observeNamedFiles(opts.flow, request, [], await opts.root(), text);
		return outcome;
	};
}

/**
 * Refuses a read or prompt request whose defining entry (the prompt, the resource or the template
 * its URI matches) is not approved as the server lists it now. The listing is read first, so the
 * verdict is about the definition the server would act under; a listing that cannot be read refuses.
 */
async function admitDefinition(servers: McpRouter, server: string, request: McpReadRequest, resource: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
	const listing = definingListing(request);
	if (!servers.unapproved || !servers.read || listing === undefined) return;
	let entries: McpListEntry[];
	try {
		const listed = await servers.read(server, { method: listing }, { signal, timeoutMs });
		entries = listed.kind === "list" ? definingEntries(request, listed.entries) : [];
	} catch (err) {
		if (signal.aborted) throw new PrimitiveCancelledError(`read of ${resource} cancelled before it started`);
		throw new McpPrimitiveError(`mcp.read refused ${resource}: its definition could not be checked (${err instanceof Error ? err.message : String(err)}); nothing was sent`);
	}
	const verdicts = await servers.unapproved(server, listing, entries);
	const why = verdicts.find((v) => v !== undefined);
	if (why !== undefined) throw new McpPrimitiveError(`mcp.read refused ${resource}: ${why}; nothing was sent`);
}
