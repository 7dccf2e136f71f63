/**
 * The CLI's display step under generated input: an ask whose command, reason and diff hold anything
 * at all prints the same number of lines (no value can draw one of its own), none with a hidden
 * character raw, and the `command:` line decodes to exactly the command.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../kernel/display/visible-text.js";
import type { PendingAsk } from "../../runtime/asks/ask-types.js";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../../test-support/fuzz-runs.js";
import { hostileText, RAW_HIDDEN } from "../../test-support/hostile-text.js";
import { renderAsks } from "./asks-command.js";

function ask(command: string, reason: string): PendingAsk {
	return { id: "ask-1", session: "s", call_id: "call_1_1_1", kind: "approval", tool: "shell", resource: `shell:${command}`, arguments: { command }, reason, created_at: "2026-01-01T00:00:00Z" };
}

describe("renderAsks (property)", () => {
	it(
		"prints a fixed layout with nothing hidden, and the command line decodes to the command",
		() => {
			fc.assert(
				fc.property(hostileText, hostileText, (command, reason) => {
					const lines = renderAsks([ask(command, reason)]).split("\n");
					expect(lines.at(-1)).toBe("");
					expect(lines).toHaveLength(6);
					for (const line of lines) expect(RAW_HIDDEN.test(line)).toBe(false);
					const shown = lines.find((l) => l.startsWith("  command: ")) as string;
					expect(decodeVisibleText(shown.slice("  command: ".length))).toBe(command);
					expect(decodeVisibleText((lines[1] as string).slice("  why: ".length))).toBe(reason);
				}),
				fuzzRuns(1000, 1),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
