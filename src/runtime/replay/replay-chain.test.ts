import { describe, expect, it } from "vitest";
import { replayText, sealLines, verifyChain } from "./replay-chain.js";
import { ReplayError } from "./replay-format.js";

const records = [
	{ replay_schema: 1, kind: "warden.replay", session: "s" },
	{ type: "input", turn: 1, text: "edit notes" },
	{ type: "model", turn: 1, step: 1, response: { text: "", toolCalls: [{ name: "shell", arguments: '{"command":"ls"}' }] } },
	{ type: "effect", turn: 1, call: "call_1_1_1", effect: "shell.exec", resource: "shell:ls", exit_code: 0 },
	{ type: "model", turn: 1, step: 2, response: { text: "done", toolCalls: [] } },
];

function broken(text: string): string {
	const error = (() => {
		try {
			verifyChain(text);
		} catch (e) {
			return e;
		}
		throw new Error("the chain was accepted");
	})();
	expect(error).toBeInstanceOf(ReplayError);
	const message = (error as Error).message;
	expect(message).not.toContain("\n");
	return message;
}

describe("replay chain", () => {
	const lines = sealLines(records);

	it("chains each line to the one before and ends with a count and a digest", () => {
		expect(lines).toHaveLength(records.length + 1);
		expect(JSON.parse(lines[0]!).prev).toBe("0".repeat(64));
		const end = JSON.parse(lines.at(-1)!);
		expect(end).toMatchObject({ type: "end", lines: records.length });
		expect(end.digest).toMatch(/^[0-9a-f]{64}$/);
		expect(verifyChain(replayText(lines))).toEqual(records);
	});

	it("names the line after an edited one", () => {
		const edited = [...lines];
		edited[2] = edited[2]!.replace('\\"ls\\"', '\\"rm -rf .\\"');
		expect(edited[2]).not.toBe(lines[2]);
		expect(broken(replayText(edited))).toBe("replay file tampered: line 4 does not chain to line 3 (line 3 was edited, or lines were removed or reordered there)");
	});

	it("detects a deleted line where the gap is", () => {
		const deleted = lines.filter((_, i) => i !== 3);
		expect(broken(replayText(deleted))).toMatch(/^replay file tampered: line 4 does not chain to line 3/);
	});

	it("detects two swapped lines", () => {
		const swapped = [...lines];
		[swapped[2], swapped[3]] = [swapped[3]!, swapped[2]!];
		expect(broken(replayText(swapped))).toMatch(/^replay file tampered: line 3 does not chain to line 2/);
	});

	it("detects a cut-off end, with or without a partial last line", () => {
		expect(broken(replayText(lines.slice(0, -1)))).toBe(`replay file is truncated: no end line after line ${records.length}`);
		expect(broken(replayText(lines.slice(0, -2)))).toBe(`replay file is truncated: no end line after line ${records.length - 1}`);
		const partial = `${replayText(lines.slice(0, -1))}${lines.at(-1)!.slice(0, 20)}`;
		expect(broken(partial)).toBe(`replay file tampered: line ${lines.length} is not JSON`);
	});

	it("detects an edited last line before the end, an edited end line, and lines after the end", () => {
		const beforeEnd = [...lines];
		beforeEnd[4] = beforeEnd[4]!.replace('"done"', '"fine"');
		expect(broken(replayText(beforeEnd))).toMatch(/^replay file tampered: line 6 does not chain to line 5/);
		const end = JSON.parse(lines.at(-1)!);
		const recounted = [...lines.slice(0, -1), JSON.stringify({ ...end, lines: 3 })];
		expect(broken(replayText(recounted))).toBe("replay file tampered: line 6 (end) counts 3 lines, the file has 5 before it");
		const redigested = [...lines.slice(0, -1), JSON.stringify({ ...end, digest: "f".repeat(64) })];
		expect(broken(replayText(redigested))).toBe("replay file tampered: line 6 (end) has a digest that does not match the lines before it");
		expect(broken(`${replayText(lines)}{"type":"input"}\n`)).toBe("replay file tampered: line 6 is an end line but 1 line(s) follow it");
	});

	it("refuses a first line that does not start a chain, and an empty file", () => {
		expect(broken(replayText(lines.slice(1)))).toBe("replay file tampered: line 1 is not the start of a replay chain (its prev is not 64 zeros)");
		expect(broken("")).toBe("replay file is empty");
	});
});
