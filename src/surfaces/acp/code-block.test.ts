import { describe, expect, it } from "vitest";
import { codeBlock } from "./code-block.js";

describe("codeBlock", () => {
	it("fences with three backticks when the text holds none", () => {
		expect(codeBlock("ls\n", "sh")).toBe("```sh\nls\n```");
	});
	it("fences longer than the longest run of backticks in the text, so the text cannot close it", () => {
		expect(codeBlock("a\n````\nb", "sh")).toBe("`````sh\na\n````\nb\n`````");
	});
});
