import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedModel } from "../../models/scripted.js";
// The CLI's disk port: the runtime touches no filesystem itself, its hosts hand one in.
import { nodeReplayDisk } from "../../providers/replay-disk.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { replayText, sealLines } from "./replay-chain.js";
import { replay } from "./replay.js";
import { ReplayError } from "./replay-format.js";

const schemaPath = fileURLToPath(new URL("../../../schemas/replay.v1.json", import.meta.url));

const plan = {
	steps: [
		{
			tool_calls: [
				{ name: "edit_file", arguments: { path: "notes.txt", old: "hello", new: "hello world" } },
				{ name: "write_file", arguments: { path: "made/new.txt", content: "created\n" } },
			],
		},
		{ tool_calls: [{ name: "shell", arguments: { command: "grep -c world notes.txt > count.txt" } }] },
		{ text: "done" },
	],
};

let t: TestRuntime | undefined;
afterEach(async () => {
	if (t) await closeTestRuntime(t);
	t = undefined;
});

/** Runs the plan in a fresh runtime (the shell's ask answered yes) and exports the session. */
async function recorded(): Promise<{ t: TestRuntime; lines: string[]; session: string }> {
	t = await openTestRuntime("warden-replay-", { files: { "notes.txt": "hello\n", "keep.txt": "untouched\n" } });
	const session = await t.runtime.openSession({ workspace: t.workspace, model: ScriptedModel.fromPlan(plan, "scripted:test"), confirm: async () => true,
		// In the workspace-write sandbox the grep would run unasked; the replay must show an approved ask.
		rules: { ask: ["shell(grep *)"] },
	});
	const result = await session.send("edit the notes and check them");
	expect(result.status).toBe("completed");
	await session.end();
	return { t, lines: await t.runtime.exportReplay(session.id), session: session.id };
}

describe("replay", () => {
	it("exports a session as schema-valid chained lines and replays it to a full match, leaving the workspace as it was", async () => {
		const { t, lines, session } = await recorded();
		const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(await readFile(schemaPath, "utf8")));
		for (const line of lines) expect(validate(JSON.parse(line)), `${line}\n${JSON.stringify(validate.errors)}`).toBe(true);

		const types = lines.map((l) => JSON.parse(l).type ?? "header");
		expect(types).toEqual(["header", "file", "file", "input", "model", "decision", "decision", "effect", "effect", "model", "decision", "effect", "model", "end"]);
		const files = lines.map((l) => JSON.parse(l)).filter((r) => r.type === "file");
		expect(files[0]).toMatchObject({ path: "made/new.txt", sha256: null });
		expect(files[1]).toMatchObject({ path: "notes.txt", content_b64: Buffer.from("hello\n").toString("base64") });
		const shell = lines.map((l) => JSON.parse(l)).find((r) => r.type === "decision" && r.tool === "shell");
		expect(shell).toMatchObject({ decision: "ask", approval: { approved: true } });

		const report = await replay(replayText(lines), { disk: nodeReplayDisk, env: process.env });
		expect(report.mismatches).toEqual([]);
		expect(report).toMatchObject({ match: true, session, decisions: 3, effects: 3, notes: [], turns: [{ turn: 1, status: "completed" }] });
		// The replay ran in a copy: the recorded workspace still holds the session's end state.
		expect(await readFile(join(t.workspace, "notes.txt"), "utf8")).toBe("hello world\n");
	});

	it("reports a mismatch when a file the session edited was changed since, and names it in the notes", async () => {
		const { t, lines } = await recorded();
		await writeFile(join(t.workspace, "notes.txt"), "hello there\n");
		const report = await replay(replayText(lines), { disk: nodeReplayDisk, env: process.env });
		expect(report.match).toBe(false);
		expect(report.notes).toEqual(["notes.txt: neither as the session found it nor as it left it; used as found"]);
		const edit = report.mismatches.find((m) => m.call === "call_1_1_1");
		expect(edit?.what).toBe("effect differs in sha256_before, sha256_after");
		expect(lines[edit!.line! - 1]).toContain('"resource":"fs:notes.txt"');
	});

	it("reports a shell command whose exit code changed, from a workspace given with --workspace", async () => {
		const { t, lines } = await recorded();
		// A start where the edit cannot produce "world": the grep finds nothing and exits 1.
		const other = join(t.root, "other");
		await nodeReplayDisk.writeFile(other, "notes.txt", Buffer.from("goodbye\n"));
		const report = await replay(replayText(lines), { disk: nodeReplayDisk, env: process.env, workspace: other });
		expect(report.match).toBe(false);
		expect(report.notes).toEqual(["notes.txt: neither as the session found it nor as it left it; used as found"]);
		expect(report.mismatches).toContainEqual(expect.objectContaining({ call: "call_1_1_1", what: "the recorded effect did not happen in the replay" }));
		expect(report.mismatches).toContainEqual(
			expect.objectContaining({ call: "call_1_2_1", what: "effect differs in exit_code", recorded: { exit_code: 0 }, replayed: { exit_code: 1 } }),
		);
	});

	it("refuses a tampered file before running anything", async () => {
		const { lines } = await recorded();
		const tampered = [...lines];
		const at = tampered.findIndex((l) => l.includes('"type":"model"'));
		tampered[at] = tampered[at]!.replace("hello world", "hello WORLD");
		await expect(replay(replayText(tampered), { disk: nodeReplayDisk })).rejects.toThrow(ReplayError);
		await expect(replay(replayText(tampered), { disk: nodeReplayDisk })).rejects.toThrow(`line ${at + 2} does not chain to line ${at + 1}`);
	});

	it("names a turn that ran out of recorded responses", async () => {
		const { lines } = await recorded();
		const records = lines.slice(0, -1).map((l) => {
			const { prev: _, ...rest } = JSON.parse(l);
			return rest;
		});
		// The final answer is gone (re-chained, as a writer would): the turn asks for a fourth response.
		const cut = records.filter((r) => !(r.type === "model" && r.step === 3));
		const report = await replay(replayText(sealLines(cut)), { disk: nodeReplayDisk, env: process.env });
		expect(report.match).toBe(false);
		expect(report.turns[0]).toMatchObject({ status: "model_error", error: "replay model: turn 1 asked for model response 3, but the recording holds 2" });
		expect(report.mismatches).toContainEqual(expect.objectContaining({ recorded: "completed", replayed: "model_error" }));
	});
});
