/**
 * The ask card under generated commands: what the terminal shows of an ask decodes back to exactly
 * the canonical command and arguments the decision read, and no line of it, nor a tool card, a
 * diff or a message drawn through the rule, holds a character a terminal acts on.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../kernel/display/visible-text.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../../test-support/fuzz-runs.js";
import { askLines, cardLines } from "./card-lines.js";
import { displayText } from "./display-line.js";

const hostile = fc.constantFrom("\u001b[8m", "\u001b[0m", "\u001b]0;", "\u001b]52;c;eA==\u0007", "\b", "\r", "\n", "\t", "\u202e", "\u200b", "\u009b", "; touch a", "\\", "\\x1b", "echo ");
const command = fc.string({ unit: fc.oneof(hostile, fc.string({ maxLength: 3 }), fc.string({ unit: "binary", maxLength: 2 })), maxLength: 25 });
/** Every character a terminal acts on or a person cannot see, as the display rule spells them. */
const ACTED_ON = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;

function ask(text: string): { kind: "approval"; request: ConfirmationRequest } {
	return {
		kind: "approval",
		request: {
			requestId: "r",
			session: "s",
			callId: "c",
			tool: "shell",
			resource: text,
			arguments: { command: text },
			argumentsDigest: "0".repeat(64),
			targetDigest: "0".repeat(64),
			decision: { decision: "ask", layer: "host-rule", reason: "asked" } as ConfirmationRequest["decision"],
			diff: `--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+${text}\n`,
		},
	};
}

describe("the ask card (property)", () => {
	it(
		"shows the canonical command and arguments exactly, every line free of what a terminal acts on",
		() => {
			fc.assert(
				fc.property(command, (text) => {
					const lines = askLines(ask(text), true).map((l) => l.text);
					for (const line of lines) expect(ACTED_ON.test(line)).toBe(false);
					const resource = /^Allow shell on ([\s\S]*)\?$/.exec(lines[0] as string)?.[1];
					expect(decodeVisibleText(resource as string)).toBe(text);
					const args = lines.find((l) => l.startsWith("  arguments "))?.slice("  arguments ".length);
					expect(JSON.parse(decodeVisibleText(args as string))).toEqual({ command: text });
					const card = cardLines({ callId: "c", tool: "shell", arguments: { command: text }, status: "completed", diff: ask(text).request.diff as string, tail: [text] }, 0);
					for (const line of card) expect(ACTED_ON.test(line.text)).toBe(false);
					expect(ACTED_ON.test(displayText(text).replace(/\n/g, ""))).toBe(false);
				}),
				fuzzRuns(1000, 0.5),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
