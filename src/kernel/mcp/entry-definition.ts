/**
 * The part of a listed resource, resource template or prompt that is pinned, like a tool's
 * definition: its kind, name, title, description, URI or URI template, MIME type, arguments and
 * annotations. The kind is part of what is hashed, so an entry's digest never equals a tool's. Each
 * entry is pinned under a key of its kind (`resource:<uri>`, `resource-template:<template>`,
 * `prompt:<name>`), and a read or a prompt request finds the entry that defines it by that key.
 */
import type { McpListEntry, McpReadRequest } from "../../providers/mcp/mcp-types.js";

export type McpEntryKind = "resource" | "resource-template" | "prompt";

/** The listing method an entry of each kind comes from. */
export type McpListMethod = "resources/list" | "prompts/list";

/** A listed entry's kind: a prompt from prompts/list; a template or a plain resource from resources/list. */
export function entryKind(method: McpListMethod, entry: McpListEntry): McpEntryKind {
	if (method === "prompts/list") return "prompt";
	return entry.uriTemplate !== undefined && entry.uri === undefined ? "resource-template" : "resource";
}

/** The key an entry is pinned under, in the pins' `tool` column. */
export function entryKey(kind: McpEntryKind, entry: McpListEntry): string {
	switch (kind) {
		case "prompt":
			return `prompt:${entry.name}`;
		case "resource-template":
			return `resource-template:${entry.uriTemplate ?? ""}`;
		case "resource":
			return `resource:${entry.uri ?? ""}`;
	}
}

export function pinnedEntryDefinition(kind: McpEntryKind, entry: McpListEntry): Record<string, unknown> {
	return {
		kind,
		name: entry.name,
		...(entry.title !== undefined ? { title: entry.title } : {}),
		...(entry.uri !== undefined ? { uri: entry.uri } : {}),
		...(entry.uriTemplate !== undefined ? { uriTemplate: entry.uriTemplate } : {}),
		...(entry.description !== undefined ? { description: entry.description } : {}),
		...(entry.mimeType !== undefined ? { mimeType: entry.mimeType } : {}),
		...(entry.arguments !== undefined ? { arguments: entry.arguments } : {}),
		...(entry.annotations !== undefined ? { annotations: entry.annotations } : {}),
	};
}

/**
 * Whether a URI is one a URI template (RFC 6570) can expand to: literal text must match exactly,
 * each `{…}` expression matches any text. Generous on purpose: a URI a template might define is
 * held to that template's approval.
 */
export function templateMatches(template: string, uri: string): boolean {
	const parts = template.split(/\{[^}]*\}/u);
	if (parts.length === 1) return template === uri;
	const pattern = parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&")).join("[\\s\\S]*");
	return new RegExp(`^${pattern}$`, "u").test(uri);
}

/** The listing that defines what a read or prompt request uses; undefined for the listings themselves. */
export function definingListing(request: McpReadRequest): McpListMethod | undefined {
	if (request.method === "prompts/get") return "prompts/list";
	if (request.method === "resources/read") return "resources/list";
	return undefined;
}

/**
 * The listed entries whose definitions a request uses: the prompt of that name; the resource of
 * that URI, else every template the URI matches. None: the request uses no listed definition.
 */
export function definingEntries(request: McpReadRequest, entries: readonly McpListEntry[]): McpListEntry[] {
	if (request.method === "prompts/get") return entries.filter((e) => e.name === request.name);
	if (request.method !== "resources/read") return [];
	const exact = entries.filter((e) => e.uri === request.uri);
	if (exact.length > 0) return exact;
	return entries.filter((e) => e.uri === undefined && e.uriTemplate !== undefined && templateMatches(e.uriTemplate, request.uri));
}
