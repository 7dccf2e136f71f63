/**
 * The network primitive, `net.fetch`: one HTTP exchange, admitted as `egress` on the URL's origin
 * (`net:<scheme>://<host>:<port>`), its response charged to `bytes_read`, and recorded before it
 * returns — also when it fails, since the request may have left the host.
 *
 * It fails closed: without an authority nothing is sent, and only the full-access preset grants
 * `net:`, so elsewhere a fetch is refused unless a host grant covers the origin. A redirect is not followed: its Location
 * comes back to the caller, and fetching it is a new admission on its own origin. The request body
 * is not charged to any counter; the response is charged what was read, the cap reserved first.
 */
import { createHash } from "node:crypto";
import { HttpCancelledError, HttpRequestError, HttpTimeoutError, httpFetch } from "../providers/net-provider.js";
import type { CallAuthority } from "./authority/authority.js";
import { netResource } from "./authority/resource.js";
import type { Budget } from "./budget/budget.js";
import type { EffectSink } from "./effects.js";
import { canonicalJson } from "./evidence/audit-chain.js";
import { flowEvidence } from "./flow/flow-evidence.js";
import type { CallFlow, FlowDecisionRecord } from "./flow/flow-types.js";
import { label } from "./flow/label.js";
import { type OperationLog, runProtected } from "./operations/protected-operation.js";
import { PrimitiveCancelledError } from "./kernel-errors.js";
import type { NetPrimitives, NetRequest, NetResponse } from "./primitives.js";

export interface NetPrimitivesOptions {
	callId: string;
	signal: AbortSignal;
	recordEffect: EffectSink;
	budget?: Budget | undefined;
	authority?: CallAuthority | undefined;
	flow?: CallFlow | undefined;
	operations?: OperationLog | undefined;
}

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
export const DEFAULT_FETCH_MAX_BYTES = 5 * 1024 * 1024;

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A fetch request that is malformed or that the kernel will not send. */
export class NetPrimitiveError extends Error {
	override name = "NetPrimitiveError";
}

interface CheckedRequest {
	url: URL;
	method: string;
	headers: Record<string, string>;
	body: string | undefined;
	timeoutMs: number;
	maxBytes: number;
}

function checkRequest(req: NetRequest): CheckedRequest {
	let url: URL;
	try {
		url = new URL(req.url);
	} catch {
		throw new NetPrimitiveError(`${JSON.stringify(req.url)} is not a URL`);
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") throw new NetPrimitiveError(`net.fetch supports http: and https: URLs, not ${url.protocol}`);
	const method = (req.method ?? "GET").toUpperCase();
	if (!METHODS.has(method)) throw new NetPrimitiveError(`net.fetch does not send ${JSON.stringify(req.method)} requests`);
	if (req.body !== undefined && (method === "GET" || method === "HEAD")) throw new NetPrimitiveError(`a ${method} request cannot carry a body`);
	const timeoutMs = req.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
	const maxBytes = req.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
	if (!(timeoutMs > 0) || !Number.isSafeInteger(maxBytes) || maxBytes < 0) {
		throw new NetPrimitiveError("net.fetch needs a positive timeoutMs and a non-negative integer maxBytes");
	}
	return { url, method, headers: req.headers ?? {}, body: req.body, timeoutMs, maxBytes };
}

/** The URL as evidence: credentials dropped (the query stays; the redactor runs on audit data). */
function recordedUrl(url: URL): string {
	const copy = new URL(url.href);
	copy.username = "";
	copy.password = "";
	return copy.href;
}

export function createNetPrimitives(opts: NetPrimitivesOptions): NetPrimitives {
	return {
		async fetch(request): Promise<NetResponse> {
			const req = checkRequest(request);
			if (opts.signal.aborted) throw new PrimitiveCancelledError(`fetch of ${recordedUrl(req.url)} cancelled before it started`);
			const resource = netResource(req.url.href);
			if (!opts.authority) throw new NetPrimitiveError(`net.fetch refused ${resource}: the kernel has no authority to admit network egress`);
			opts.authority.admit([{ resource, right: "egress" }]);
			// Everything the request carries leaves: the URL (its query and path), the headers and the body.
			const payload = canonicalJson({ method: req.method, url: req.url.href, headers: req.headers, body: req.body ?? null });
			const flow: FlowDecisionRecord[] = opts.flow ? await opts.flow.admitEgress({ operation: "net.fetch", sinks: [resource], payload }) : [];
			const held = opts.budget?.reserve("bytes_read", req.maxBytes);

			const url = recordedUrl(req.url);
			const requestBytes = req.body === undefined ? 0 : Buffer.byteLength(req.body, "utf8");
			const record = { url, method: req.method, request_bytes: requestBytes, ...flowEvidence(flow) };
			let response: Awaited<ReturnType<typeof httpFetch>>;
			try {
				response = await runProtected(opts.operations, opts.recordEffect, {
					kind: "net.fetch",
					callId: opts.callId,
					resource,
					intent: { url, method: req.method, payload_sha256: createHash("sha256").update(payload).digest("hex") },
					reserved: { bytes_read: req.maxBytes },
					revalidate: () => {
						if (opts.signal.aborted) throw new PrimitiveCancelledError(`fetch of ${url} cancelled before it started`);
					},
					dispatch: () =>
						httpFetch({ url: req.url.href, method: req.method, headers: req.headers, body: req.body, timeoutMs: req.timeoutMs, maxBytes: req.maxBytes, signal: opts.signal }),
					// Once the request may have left, a failure does not say whether the other side acted on it.
					errored: (err) => ({
						state: "unknown",
						effect: {
							...record,
							outcome: err instanceof HttpCancelledError ? "cancelled" : "failed",
							response_bytes: 0,
							truncated: false,
							error: err instanceof Error ? err.message : String(err),
						},
					}),
					settled: (r) => ({
						state: "committed",
						outcome: { status: r.status },
						effect: { ...record, outcome: "completed", status: r.status, response_bytes: r.body.length, truncated: r.truncated, duration_ms: r.durationMs },
					}),
				});
			} catch (err) {
				// Refused before it left: nothing to charge. Otherwise how much of a response arrived is unknown: the cap is charged.
				if (err instanceof PrimitiveCancelledError) {
					held?.release();
					throw err;
				}
				held?.settle();
				const message = err instanceof Error ? err.message : String(err);
				// Callers above the kernel see the kernel's own errors, not the provider's.
				if (err instanceof HttpCancelledError) throw new PrimitiveCancelledError(`fetch of ${url} cancelled`);
				if (err instanceof HttpTimeoutError || err instanceof HttpRequestError) throw new NetPrimitiveError(`${req.method} ${url} failed: ${message}`);
				throw err;
			}
			held?.settle(response.body.length);
			const body = response.body.toString("utf8");
			// Whatever came back is the remote's word: untrusted, and no more public than the workspace.
			opts.flow?.observe(label("internal", "untrusted", { kind: "url", ref: url }), body);
			return {
				url,
				status: response.status,
				statusText: response.statusText,
				headers: response.headers,
				body,
				bytes: response.body.length,
				truncated: response.truncated,
				durationMs: response.durationMs,
			};
		},
	};
}
