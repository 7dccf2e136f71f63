/** web_fetch: one HTTP request through the kernel's net.fetch; a redirect is reported, not followed. */
import type { NetResponse } from "../kernel/primitives.js";
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import type { ToolDefinition } from "./tool.js";

export const WEB_FETCH_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const;
export type WebFetchMethod = (typeof WEB_FETCH_METHODS)[number];

export type WebFetchArgs = {
	url: string;
	method?: WebFetchMethod;
	body?: string;
	headers?: Record<string, string>;
};

/** Headers worth the model's attention; the rest are transport detail. */
const SHOWN_HEADERS = ["content-type", "location"] as const;
/** Characters of an error response's body kept on its one line. */
const ERROR_EXCERPT_CHARS = 200;
/**
 * The transport's failures (timeout, refused connection, bad name) come from the provider, which
 * tools do not import; they are told apart by name so they reach the model as a tool failure.
 */

function statusLine(res: NetResponse): string {
	return `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
}

function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

/** Status, the shown headers, then the body, bounded to what the model is given. */
function describeResponse(res: NetResponse, method: string, maxChars: number): string {
	const head = [statusLine(res)];
	for (const name of SHOWN_HEADERS) {
		const value = res.headers[name];
		if (value !== undefined) head.push(`${name}: ${value}`);
	}
	if (res.truncated) head.push(`[response truncated: only the first ${res.bytes} bytes were read]`);
	const headText = head.join("\n");
	const body = method === "HEAD" || res.body === "" ? "(no body)" : res.body;
	const room = Math.max(0, maxChars - headText.length - 2);
	return `${headText}\n\n${truncateText(body, room)}`;
}

/** A response outside 2xx as one line: a redirect names where it points, an error shows the start of its body. */
function describeFailure(res: NetResponse): string {
	const location = res.headers.location;
	if (res.status >= 300 && res.status < 400 && location !== undefined) {
		return `${statusLine(res)}: redirected to ${location} (not followed; fetch that URL to continue)`;
	}
	const excerpt = oneLine(res.body, ERROR_EXCERPT_CHARS);
	return excerpt === "" ? `${statusLine(res)} from ${res.url}` : `${statusLine(res)} from ${res.url}: ${excerpt}`;
}

export const webFetchTool: ToolDefinition<WebFetchArgs> = {
	name: "web_fetch",
	description:
		"Send one HTTP(S) request and return the status, the content type and the response body. Redirects are not followed: the Location is returned. The host must allow the destination.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			url: { type: "string", minLength: 1, description: "An http: or https: URL." },
			method: { type: "string", enum: [...WEB_FETCH_METHODS], description: "HTTP method; GET when omitted." },
			body: { type: "string", description: "Request body (not allowed with GET or HEAD)." },
			headers: {
				type: "object",
				additionalProperties: { type: "string" },
				description: "Request headers, name to value.",
			},
		},
		required: ["url"],
		additionalProperties: false,
	},
	// It sends data out: the URL, the headers and the body all leave the host.
	readOnly: false,
	requiresConfirmation: true,
	ruleSubject: (args) => ({ kind: "pattern", value: args.url }),
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			const method = args.method ?? "GET";
			const res: NetResponse = await ctx.kernel.net.fetch({
				url: args.url,
				method,
				...(args.headers ? { headers: args.headers } : {}),
				...(args.body !== undefined ? { body: args.body } : {}),
				maxBytes: ctx.limits.maxReadBytes,
			});
			if (res.status < 200 || res.status > 299) return { output: describeFailure(res), isError: true };
			return { output: describeResponse(res, method, ctx.limits.maxResultChars) };
		}),
};
