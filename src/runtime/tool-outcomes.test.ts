import { describe, expect, it } from "vitest";
import { clip } from "./tool-outcomes.js";

/** What clip must give: the whole text flattened, then cut. */
function reference(text: string, max: number): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

describe("clip", () => {
	it.each([
		["short text", "a  b\n\tc ", 300],
		["a long output, one word after another", "word ".repeat(2000), 300],
		["a long run of whitespace past the first look", `${"a".repeat(10)}${" ".repeat(5000)}${"b".repeat(400)}`, 300],
		["whitespace only", " \n\t ".repeat(3000), 300],
		["ends exactly at the limit", `${"x".repeat(300)}${" ".repeat(3000)}`, 300],
		["one past the limit after a long gap", `${"x".repeat(300)}${"\n".repeat(3000)}y`, 300],
		["a surrogate pair at the cut", "😀".repeat(1000), 301],
		["no-break and other Unicode spaces", "\u00a0\u2028a\u3000\ufeff".repeat(900), 120],
	])("%s: the same as flattening the whole text", (_name, text, max) => {
		expect(clip(text, max)).toBe(reference(text, max));
	});

	it("agrees with flattening the whole text on mixed texts of every length", () => {
		let seed = 11;
		const next = (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed % n;
		};
		const pieces = ["a", "bc", " ", "  ", "\n", "\t\t", "\u00a0", "word", " ".repeat(300)];
		for (let i = 0; i < 500; i++) {
			let text = "";
			for (let n = next(600); n > 0; n--) text += pieces[next(pieces.length)];
			const max = 1 + next(320);
			expect(clip(text, max)).toBe(reference(text, max));
		}
	});
});
