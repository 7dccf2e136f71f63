import { describe, expect, it } from "vitest";
import type { McpListEntry, McpReadRequest } from "../../providers/mcp/mcp-types.js";
import { definingEntries, entryKey, entryKind, pinnedEntryDefinition, templateMatches } from "./entry-definition.js";
import { definitionDigest, pinnedDefinition } from "./tool-definition.js";

const readme: McpListEntry = { name: "readme", uri: "notes://readme", description: "The readme." };
const day: McpListEntry = { name: "day", uriTemplate: "notes://day/{date}" };
const summarize: McpListEntry = { name: "summarize", arguments: [{ name: "topic", required: true }] };

describe("entry definitions", () => {
	it.each([
		["resources/list", readme, "resource", "resource:notes://readme"],
		["resources/list", day, "resource-template", "resource-template:notes://day/{date}"],
		["prompts/list", summarize, "prompt", "prompt:summarize"],
	] as const)("%s lists %j as a %s pinned under %s", (method, entry, kind, key) => {
		expect(entryKind(method, entry)).toBe(kind);
		expect(entryKey(kind, entry)).toBe(key);
	});

	it("pins the kind with the fields, so an entry's digest is never a tool's of the same text", () => {
		expect(pinnedEntryDefinition("prompt", summarize)).toEqual({ kind: "prompt", name: "summarize", arguments: [{ name: "topic", required: true }] });
		const asTool = pinnedDefinition({ name: "summarize", description: "", inputSchema: {} });
		expect(definitionDigest(pinnedEntryDefinition("prompt", summarize))).not.toBe(definitionDigest(asTool));
		expect(definitionDigest(pinnedEntryDefinition("resource", { ...readme, annotations: { priority: 1 } }))).not.toBe(definitionDigest(pinnedEntryDefinition("resource", readme)));
	});

	it.each([
		["notes://day/{date}", "notes://day/2026-01-01", true],
		["notes://day/{date}", "notes://night/2026-01-01", false],
		["notes://day/{date}", "xnotes://day/1", false],
		["file:///{+path}", "file:///a/b.txt", true],
		["a.b/{x}", "aXb/1", false],
		["notes://readme", "notes://readme", true],
	] as const)("template %s matches %s: %s", (template, uri, expected) => {
		expect(templateMatches(template, uri)).toBe(expected);
	});

	it.each<[string, McpReadRequest, string[]]>([
		["a prompt by its name", { method: "prompts/get", name: "summarize", arguments: {} }, ["summarize"]],
		["a listed resource by its URI, not the template it also matches", { method: "resources/read", uri: "notes://readme" }, ["readme"]],
		["an unlisted URI by every template it matches", { method: "resources/read", uri: "notes://day/1" }, ["day", "any"]],
		["a URI nothing defines", { method: "resources/read", uri: "other://x" }, []],
		["a listing (it defines nothing)", { method: "resources/list" }, []],
	])("%s", (_what, request, names) => {
		const any: McpListEntry = { name: "any", uriTemplate: "notes://{any}" };
		expect(definingEntries(request, [readme, day, any, summarize]).map((e) => e.name)).toEqual(names);
	});
});
