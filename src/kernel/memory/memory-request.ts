/**
 * What memory.write and memory.read accept, checked before anything is admitted: a bad request is
 * one line naming the field, never a record half-written.
 */
import { MEMORY_KINDS, MEMORY_SCOPES, type MemoryRow, type MemoryScopeRow } from "../../store/memory-rows.js";

export { MEMORY_KINDS, MEMORY_SCOPES };
import type { MemoryScore } from "./memory-score.js";

export type MemoryScope = MemoryScopeRow;

export interface MemoryWriteRequest {
	scope: MemoryScope;
	namespace: string;
	title: string;
	content: string;
	tags?: readonly string[];
	/** Workspace-relative paths the record is about. */
	path_hints?: readonly string[];
	/** The record expires this many days after it is written. */
	ttl_days?: number;
	/** `outcome` is the runtime's own record of a tool call; the model writes notes. */
	kind?: MemoryRow["kind"];
	metadata?: Record<string, unknown>;
}

export interface MemorySearchRequest {
	query: string;
	/** Default: all three. */
	scopes?: readonly MemoryScope[];
	/** Default: every namespace of the scopes. */
	namespace?: string;
	kind?: MemoryRow["kind"];
	/** Paths the caller is working on: a record with a path hint on one of them scores the path term. */
	paths?: readonly string[];
	limit?: number;
	includeStale?: boolean;
}

export interface MemoryHit {
	record: MemoryRow;
	score: MemoryScore;
}

export interface MemoryWriteOutcome {
	record: MemoryRow;
	/** Older records of the same scope, namespace and title, now marked stale. */
	superseded: string[];
	/** Whether an embedding was stored, and why not when it was not. */
	embedded: boolean;
	embeddingNote?: string;
}

/** A memory request that is malformed or that the kernel will not carry out. */
export class MemoryPrimitiveError extends Error {
	override name = "MemoryPrimitiveError";
}

export const NAMESPACE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const MAX_TITLE_CHARS = 200;
export const MAX_CONTENT_BYTES = 64 * 1024;
export const MAX_TAGS = 20;
export const MAX_TAG_CHARS = 64;
export const MAX_PATH_HINTS = 20;
export const MAX_SEARCH_LIMIT = 50;
export const MAX_TTL_DAYS = 3650;

export function checkScope(value: unknown, field: string): MemoryScope {
	if (!(MEMORY_SCOPES as readonly unknown[]).includes(value)) throw new MemoryPrimitiveError(`${field} must be one of ${MEMORY_SCOPES.join(", ")}, got ${JSON.stringify(value)}`);
	return value as MemoryScope;
}

export function checkNamespace(value: unknown, field = "namespace"): string {
	if (typeof value !== "string" || !NAMESPACE.test(value)) throw new MemoryPrimitiveError(`${field} must be 1-64 of a-z, 0-9, '.', '_' or '-' starting with a letter or digit, got ${JSON.stringify(value)}`);
	return value;
}

function checkStrings(value: unknown, field: string, max: number, maxChars: number): string[] {
	if (value === undefined) return [];
	if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v.trim() === "" || v.length > maxChars)) throw new MemoryPrimitiveError(`${field} must be a list of non-empty strings of at most ${maxChars} characters`);
	if (value.length > max) throw new MemoryPrimitiveError(`${field} holds ${value.length} entries; at most ${max}`);
	return [...new Set(value.map((v: string) => v.trim()))];
}

export function checkWrite(req: MemoryWriteRequest): Required<Pick<MemoryWriteRequest, "scope" | "namespace" | "title" | "content" | "kind">> & { tags: string[]; path_hints: string[]; ttl_days?: number; metadata: Record<string, unknown> } {
	const scope = checkScope(req.scope, "scope");
	const namespace = checkNamespace(req.namespace);
	if (typeof req.title !== "string" || req.title.trim() === "" || req.title.length > MAX_TITLE_CHARS) throw new MemoryPrimitiveError(`title must be a non-empty string of at most ${MAX_TITLE_CHARS} characters`);
	if (typeof req.content !== "string") throw new MemoryPrimitiveError("content must be a string");
	if (Buffer.byteLength(req.content, "utf8") > MAX_CONTENT_BYTES) throw new MemoryPrimitiveError(`content is ${Buffer.byteLength(req.content, "utf8")} bytes; a record holds at most ${MAX_CONTENT_BYTES}`);
	const kind = req.kind ?? "note";
	if (kind !== "note" && kind !== "outcome") throw new MemoryPrimitiveError(`kind must be note or outcome, got ${JSON.stringify(kind)}`);
	if (req.ttl_days !== undefined && !(Number.isFinite(req.ttl_days) && req.ttl_days > 0 && req.ttl_days <= MAX_TTL_DAYS)) throw new MemoryPrimitiveError(`ttl_days must be a number of days above 0 and at most ${MAX_TTL_DAYS}`);
	const metadata = req.metadata ?? {};
	if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new MemoryPrimitiveError("metadata must be a mapping");
	return {
		scope,
		namespace,
		title: req.title.trim(),
		content: req.content,
		kind,
		tags: checkStrings(req.tags, "tags", MAX_TAGS, MAX_TAG_CHARS),
		path_hints: checkStrings(req.path_hints, "path_hints", MAX_PATH_HINTS, 1000),
		...(req.ttl_days !== undefined ? { ttl_days: req.ttl_days } : {}),
		metadata,
	};
}

export function checkSearch(req: MemorySearchRequest): { query: string; scopes: MemoryScope[]; namespace?: string; kind?: MemoryRow["kind"]; paths: string[]; limit: number; includeStale: boolean } {
	if (typeof req.query !== "string" || req.query.trim() === "") throw new MemoryPrimitiveError("query must be a non-empty string");
	const scopes = req.scopes === undefined ? [...MEMORY_SCOPES] : [...new Set(req.scopes.map((s, i) => checkScope(s, `scopes[${i}]`)))];
	if (scopes.length === 0) throw new MemoryPrimitiveError(`scopes must name at least one of ${MEMORY_SCOPES.join(", ")}`);
	const limit = req.limit ?? 5;
	if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) throw new MemoryPrimitiveError(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
	if (req.kind !== undefined && req.kind !== "note" && req.kind !== "outcome") throw new MemoryPrimitiveError(`kind must be note or outcome, got ${JSON.stringify(req.kind)}`);
	return {
		query: req.query,
		scopes,
		...(req.namespace !== undefined ? { namespace: checkNamespace(req.namespace) } : {}),
		...(req.kind !== undefined ? { kind: req.kind } : {}),
		paths: checkStrings(req.paths, "paths", MAX_PATH_HINTS, 1000),
		limit,
		includeStale: req.includeStale === true,
	};
}
