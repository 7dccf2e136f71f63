import { describe, expect, it } from "vitest";
import { replayText, sealLines } from "./replay-chain.js";
import { ReplayError } from "./replay-format.js";
import { readReplay, replayFiles } from "./replay-reader.js";

/** A version 1 file as version 1 writers write it, spelled out here so a later writer cannot change it. */
const V1_HEADER = {
	replay_schema: 1,
	kind: "warden.replay",
	session: "6f1c0e2a-0000-4000-8000-000000000001",
	exported_at: "2026-11-01T10:00:00.000Z",
	workspace: "/home/dev/project",
	mode: "workspace-write",
	model: "scripted:/home/dev/plan.yaml",
	redacted: true,
	options: { rules: [{ rule: "shell(npm test)", outcome: "allow", source: "--allow" }], run_deny: ["shell(git push *)"] },
	tools: ["read_file", "write_file", "edit_file", "shell"],
};
const V1_ITEMS = [
	{ type: "file", path: "notes.txt", sha256: "a".repeat(64), end_sha256: "b".repeat(64), content_b64: Buffer.from("hello\n").toString("base64") },
	{ type: "input", turn: 1, text: "edit the notes" },
	{ type: "model", turn: 1, step: 1, response: { text: "", toolCalls: [{ id: "call_1_1_1", name: "edit_file", arguments: '{"path":"notes.txt","old":"hello","new":"hi"}' }] } },
	{ type: "decision", turn: 1, call: "call_1_1_1", tool: "edit_file", decision: "allow", layer: "mode" },
	{ type: "effect", turn: 1, call: "call_1_1_1", effect: "fs.write", resource: "fs:notes.txt", state: "committed", sha256_before: "a".repeat(64), sha256_after: "b".repeat(64) },
	{ type: "model", turn: 1, step: 2, response: { text: "done", toolCalls: [] } },
];

function refused(text: string): string {
	try {
		readReplay(text);
	} catch (e) {
		expect(e).toBeInstanceOf(ReplayError);
		expect((e as Error).message).not.toContain("\n");
		return (e as Error).message;
	}
	throw new Error("the file was accepted");
}

describe("readReplay", () => {
	it("reads a version 1 file: its header, and every item with the line it came from", () => {
		const replay = readReplay(replayText(sealLines([V1_HEADER, ...V1_ITEMS])));
		expect(replay.header).toEqual(V1_HEADER);
		expect(replay.items.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7]);
		expect(replay.items.map((e) => e.item)).toEqual(V1_ITEMS);
		expect(replayFiles(replay).map((f) => f.item.path)).toEqual(["notes.txt"]);
	});

	it("refuses an unknown schema version with one line", () => {
		const text = replayText(sealLines([{ ...V1_HEADER, replay_schema: 99 }, ...V1_ITEMS]));
		expect(refused(text)).toBe("replay schema version 99 is not supported (this Warden reads version 1)");
	});

	it("refuses a file that is not a Warden replay, and checks the chain before anything else", () => {
		expect(refused(replayText(sealLines([{ ...V1_HEADER, kind: "other" }])))).toBe('line 1 is not a Warden replay header (kind "other")');
		const lines = sealLines([{ ...V1_HEADER, replay_schema: 99 }, ...V1_ITEMS]);
		lines[1] = lines[1]!.replace("notes.txt", "other.txt");
		expect(refused(replayText(lines))).toMatch(/^replay file tampered: line 3 does not chain to line 2/);
	});

	it("refuses a re-chained file whose file path would leave the workspace copy", () => {
		for (const path of ["../outside.txt", "/etc/passwd", "a/../../b"]) {
			const text = replayText(sealLines([V1_HEADER, { ...V1_ITEMS[0], path }]));
			expect(refused(text)).toBe(`replay file line 2: file path ${JSON.stringify(path)} is not inside the workspace`);
		}
	});

	it("names the line of a malformed item", () => {
		const text = replayText(sealLines([V1_HEADER, V1_ITEMS[1]!, { type: "model", turn: 1, step: 1, response: { text: "x" } }]));
		expect(refused(text)).toBe("replay file line 3: model.response needs text and toolCalls");
		expect(refused(replayText(sealLines([V1_HEADER, { type: "comment" }])))).toBe('replay file line 2: unknown line type "comment"');
	});
});
