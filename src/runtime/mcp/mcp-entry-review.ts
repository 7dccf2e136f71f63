/**
 * The review of a server's resources, resource templates and prompts against what was approved in
 * this workspace, as tools are reviewed (mcp-review.ts): each entry's definition
 * (src/kernel/mcp/entry-definition.ts) is `approved`, `new` or `changed` (with the diff), and
 * flagged for hidden or instruction-like content. Only an approved entry is listed to the model
 * with its description, and only an approved one may be read or requested.
 */
import { definitionFlags } from "../../kernel/mcp/description-flags.js";
import { type McpEntryKind, type McpListMethod, entryKey, entryKind, pinnedEntryDefinition } from "../../kernel/mcp/entry-definition.js";
import { definitionDigest } from "../../kernel/mcp/tool-definition.js";
import type { McpListEntry } from "../../providers/mcp/mcp-types.js";
import type { McpPinRow } from "../../store/mcp-pins.js";
import { type McpDefinitionReview, pinStatus } from "./mcp-review.js";

export interface McpEntryReview extends McpDefinitionReview {
	kind: McpEntryKind;
	entry: McpListEntry;
}

export function reviewEntries(server: string, method: McpListMethod, entries: readonly McpListEntry[], pins: readonly McpPinRow[]): McpEntryReview[] {
	const live = new Map(pins.filter((p) => p.server === server && p.revoked_at === null).map((p) => [p.tool, p]));
	return entries.map((entry) => {
		const kind = entryKind(method, entry);
		const key = entryKey(kind, entry);
		const definition = pinnedEntryDefinition(kind, entry);
		const digest = definitionDigest(definition);
		return { server, tool: key, kind, entry, digest, flags: definitionFlags(definition), definition, ...pinStatus(key, definition, digest, live.get(key)) };
	});
}

/** Why an entry may not be shown or used, or undefined when its definition is approved as it is. */
export function unapprovedWhy(review: McpEntryReview): string | undefined {
	const approve = `warden mcp approve ${review.server} '${review.tool}'`;
	if (review.status === "new") return `the definition of ${review.tool} (sha256 ${review.digest.slice(0, 12)}) was never approved in this workspace (${approve})`;
	if (review.status === "changed") return `the definition of ${review.tool} changed since it was approved (sha256 ${review.approvedDigest?.slice(0, 12)} → ${review.digest.slice(0, 12)}): review the diff and approve it again (${approve})`;
	return undefined;
}

/** What reading a listing needs of a connection. */
export interface McpEntrySource {
	read(request: { method: McpListMethod }, options: { signal: AbortSignal; timeoutMs: number }): Promise<{ kind: "list"; entries: McpListEntry[] } | { kind: "content" }>;
}

/** How long a listing read for a review may take. */
const LISTING_TIMEOUT_MS = 30_000;

/**
 * The entries of a session or an inspection: a listing that fails leaves them unreviewed (none is
 * approved, so the kernel refuses every read that needs one) without taking the server's tools away.
 */
export async function entryReviewsOrError(source: McpEntrySource, server: string, methods: readonly McpListMethod[], pins: readonly McpPinRow[]): Promise<{ entries: McpEntryReview[] } | { entriesError: string }> {
	try {
		return { entries: await listEntryReviews(source, server, methods, pins) };
	} catch (err) {
		return { entriesError: err instanceof Error ? err.message : String(err) };
	}
}

/** The server's current listings of the given kinds, reviewed against the pins. */
export async function listEntryReviews(source: McpEntrySource, server: string, methods: readonly McpListMethod[], pins: readonly McpPinRow[]): Promise<McpEntryReview[]> {
	const reviews: McpEntryReview[] = [];
	for (const method of methods) {
		const listed = await source.read({ method }, { signal: new AbortController().signal, timeoutMs: LISTING_TIMEOUT_MS });
		if (listed.kind === "list") reviews.push(...reviewEntries(server, method, listed.entries, pins));
	}
	return reviews;
}

/** The listings a server offers: resources (with templates) and prompts, as its capabilities say. */
export function offeredListings(offers: { resources: boolean; prompts: boolean }): McpListMethod[] {
	return [...(offers.resources ? (["resources/list"] as const) : []), ...(offers.prompts ? (["prompts/list"] as const) : [])];
}
