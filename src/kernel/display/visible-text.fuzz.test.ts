/**
 * The display rule under generated input (src/test-support/hostile-text.ts): for any string, what is shown decodes back to exactly
 * that string, holds no character a terminal acts on or a person cannot see, and, written to a real
 * terminal emulator, changes none of its state (title, clipboard, alternate screen, colours).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../../test-support/fuzz-runs.js";
import { hostileText } from "../../test-support/hostile-text.js";
import { decodeVisibleText, visibleText } from "./visible-text.js";

const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b\u200c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\u00a0]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

describe("visibleText (property)", () => {
	it(
		"is decoded back to what it was given, and shows nothing hidden",
		() => {
			fc.assert(
				fc.property(hostileText, (input) => {
					const shown = visibleText(input);
					expect(decodeVisibleText(shown)).toBe(input);
					expect(FORBIDDEN.test(shown)).toBe(false);
				}),
				fuzzRuns(2000, 0.5),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"changes no terminal state when drawn",
		async () => {
			const { Terminal } = (await import("@xterm/headless")).default;
			await fc.assert(
				fc.asyncProperty(hostileText, async (input) => {
					const term = new Terminal({ cols: 80, rows: 10, allowProposedApi: true });
					let titled = false;
					let osc = false;
					term.onTitleChange(() => {
						titled = true;
					});
					for (const id of [0, 1, 2, 4, 8, 10, 11, 52, 104, 777]) {
						term.parser.registerOscHandler(id, () => {
							osc = true;
							return true;
						});
					}
					await new Promise<void>((resolve) => term.write(`${visibleText(input, { newlines: "keep" })}Z`, resolve));
					const buffer = term.buffer.active;
					const cell = buffer.getLine(buffer.baseY + buffer.cursorY)?.getCell(Math.max(0, buffer.cursorX - 1));
					expect(titled).toBe(false);
					expect(osc).toBe(false);
					expect(buffer.type).toBe("normal");
					expect(cell?.getChars()).toBe("Z");
					expect(cell?.isAttributeDefault()).toBe(true);
					expect(cell?.isInvisible()).toBe(0);
					term.dispose();
				}),
				fuzzRuns(300, 0.5),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
