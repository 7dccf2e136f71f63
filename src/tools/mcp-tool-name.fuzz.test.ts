/**
 * The MCP name mapping is one-to-one: for any accepted server names and any tool names a server can
 * send (`__` inside, characters a provider refuses, names past 64 characters, names that end like a
 * hash), two different (server, tool) pairs never get one model-facing name, and every name is one
 * a model provider accepts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../test-support/fuzz-runs.js";
import { mcpServerNameProblem, mcpToolName } from "./mcp-tool-name.js";

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Pieces that make separators, hashes and refused characters likely. */
const PIECE = fc.oneof(
	fc.constantFrom("_", "__", "-", "a", "b", "x", "mcp", ".", "/", " ", "é", "\u200b", "0", "deadbeef", "_0123abcd"),
	fc.string({ minLength: 0, maxLength: 6 }),
	fc.stringMatching(/^[0-9a-f]{8}$/),
);
const text = (max: number) => fc.array(PIECE, { minLength: 0, maxLength: max }).map((parts) => parts.join(""));
const SERVER = text(6).filter((s) => mcpServerNameProblem(s) === undefined);
const TOOL = fc.oneof(text(8), fc.string({ minLength: 0, maxLength: 90 }), fc.stringMatching(/^[a-z_]{50,80}$/));

describe("mcp tool names (fuzz)", () => {
	it(
		"never gives two (server, tool) pairs one name, and every name is a provider's valid function name",
		() => {
			fc.assert(
				fc.property(fc.uniqueArray(fc.tuple(SERVER, TOOL), { minLength: 2, maxLength: 40, selector: ([s, t]) => `${s}\u0000${t}` }), (pairs) => {
					const seen = new Map<string, string>();
					for (const [server, tool] of pairs) {
						const name = mcpToolName(server, tool);
						expect(name).toMatch(PROVIDER_NAME);
						const key = `${server}\u0000${tool}`;
						const other = seen.get(name);
						if (other !== undefined) expect.fail(`${JSON.stringify(key)} and ${JSON.stringify(other)} both map to ${name}`);
						seen.set(name, key);
					}
				}),
				fuzzRuns(300, 1),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
