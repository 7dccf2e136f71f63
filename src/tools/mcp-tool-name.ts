/**
 * The name a model knows an MCP tool by, `mcp__<server>__<tool>`, and the rule for server names that
 * keeps it one-to-one. Model providers accept function names of ^[a-zA-Z0-9_-]{1,64}$ (OpenAI and
 * Anthropic agree), so a tool name that is longer, or holds any other character, is mapped to a
 * readable prefix and 8 hex digits of sha256(server/tool).
 *
 * Why the mapping is injective for every tool name a server can send:
 * - a server name holds no `__` and does not end in `_` (mcpServerNameProblem), so the first `__`
 *   after `mcp__` is where the server's name ends: two servers never meet, whatever their tools;
 * - a tool name that holds `__` or starts or ends with `_` is hashed, so a plain name reads one way
 *   only, to a person and to a naive client too: `mcp__notes__save__echo` is never tool
 *   `save__echo` of `notes` (that one is `mcp__notes__save__echo_<hash>`), so a call by that name
 *   cannot reach a tool the model was shown under another server's name;
 * - a plain name never ends like a hashed one (`_` and 8 lowercase hex digits): such a tool name is
 *   hashed too, so a server cannot list a plain name that equals the hashed name of another tool;
 * - a hashed name keeps `mcp__<server>__` whole (a server name is at most 32 characters), and two
 *   tools of one server share one only if sha256 prefixes collide — which the session still
 *   catches (mcp-name-collisions.ts) and refuses, never registering either.
 */
import { createHash } from "node:crypto";

/** The longest function name model providers accept. */
export const MAX_TOOL_NAME = 64;
const SAFE = /^[a-zA-Z0-9_-]+$/;
/** How every hashed name ends; a plain name that ends so is hashed as well. */
const HASHED_END = /_[0-9a-f]{8}$/;
const HASH_DIGITS = 8;
/** A tool name kept as it is: no `__` in it, and no `_` at either end to join a separator. */
const PLAIN_TOOL = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/;
const SERVER_CHARS = /^[A-Za-z0-9_-]{1,32}$/;

/** Why a configured server name cannot name MCP tools unambiguously, or undefined when it can. */
export function mcpServerNameProblem(server: string): string | undefined {
	if (!SERVER_CHARS.test(server)) return "a server name holds 1-32 letters, digits, _ or -";
	if (server.includes("__")) return `it holds "__", the separator of mcp__<server>__<tool>, so its tools' names could be another server's (rename it, e.g. ${JSON.stringify(server.replace(/_{2,}/g, "-"))})`;
	if (server.endsWith("_")) return `it ends in "_", which joins the separator of mcp__<server>__<tool>, so its tools' names could be another server's (rename it, e.g. ${JSON.stringify(server.replace(/_+$/, ""))})`;
	return undefined;
}

/** `mcp__<server>__<tool>`, or its hashed form (see the head of this file). */
export function mcpToolName(server: string, tool: string): string {
	const plain = `mcp__${server}__${tool}`;
	if (plain.length <= MAX_TOOL_NAME && SAFE.test(plain) && PLAIN_TOOL.test(tool) && !HASHED_END.test(plain)) return plain;
	const hash = createHash("sha256").update(`${server}/${tool}`).digest("hex").slice(0, HASH_DIGITS);
	return `${plain.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_TOOL_NAME - HASH_DIGITS - 1)}_${hash}`;
}
