/**
 * The ACP display step under generated input: a permission request for any command shows a title
 * and content with no hidden character raw; the title decodes to the command, and the code block
 * that says what runs cannot be closed by the command, its body decoding to the command.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../kernel/display/visible-text.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../../test-support/fuzz-runs.js";
import { hostileText, RAW_HIDDEN } from "../../test-support/hostile-text.js";
import { toolPermissionRequest } from "./permission-requests.js";
import { shownPermission } from "./shown-updates.js";
import { viewToolCall } from "./tool-call-view.js";

function request(command: string): ConfirmationRequest {
	return {
		session: "s",
		callId: "call_1_1_1",
		tool: "shell",
		arguments: { command },
		resource: `shell:${command}`,
		decision: { decision: "ask", layer: "host-rule", reason: "asked" },
	} as unknown as ConfirmationRequest;
}

describe("shownPermission (property)", () => {
	it(
		"spells every hidden character; title and code block decode to the command",
		() => {
			fc.assert(
				fc.property(hostileText, (command) => {
					const shown = shownPermission(toolPermissionRequest("s", request(command), viewToolCall("shell", { command }, "/w")));
					const title = shown.toolCall.title as string;
					expect(RAW_HIDDEN.test(title) || title.includes("\n")).toBe(false);
					expect(decodeVisibleText(title)).toBe(command);
					const body = (shown.toolCall.content ?? []).flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : [])).join("");
					expect(RAW_HIDDEN.test(body.replace(/\t/g, ""))).toBe(false);
					const fenced = /\nRuns exactly:\n(`{3,})sh\n([\s\S]*)\n\1$/.exec(body);
					expect(fenced).not.toBeNull();
					const [, fence, inside] = fenced as RegExpExecArray;
					expect((inside as string).includes(fence as string)).toBe(false);
					const decoded = decodeVisibleText(inside as string);
					expect(decoded === command || `${decoded}\n` === command).toBe(true);
				}),
				fuzzRuns(1000, 1),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
