/**
 * One governed shell call parses its command once: the decision, capability admission, the flow
 * plane's egress analysis and the shell primitive all read the session's one frozen parse
 * (shell-parses.ts), and a second call with other text gets a parse of its own.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ShellParser } from "../kernel/admission/shell/shell-parser.js";
import type { ParsedShell } from "../kernel/admission/shell/shell-types.js";
import type { Runtime } from "./runtime.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-parse-once-", { files: { "README.md": "# demo\nbuild with make\n" } }));
});

afterEach(async () => {
	vi.restoreAllMocks();
	await closeTestRuntime({ root, runtime });
});

const done = { text: "done", toolCalls: [] };
const shell = (command: string) => callsStep({ name: "shell", arguments: { command } });

/** Every parse the tree-sitter parser makes while `run` runs, by the text it parsed. */
async function parsesDuring(run: () => Promise<unknown>): Promise<{ texts: string[]; results: ParsedShell[] }> {
	const spy = vi.spyOn(ShellParser.prototype, "parse");
	await run();
	return { texts: spy.mock.calls.map(([text]) => text), results: spy.mock.results.map((r) => r.value as ParsedShell) };
}

describe("a governed shell call parses its command once", () => {
	it("decision, capability admission, flow and primitive share one parse of the command", async () => {
		const model = new RecordingModel([shell("wc -l README.md"), done]);
		const session = await runtime.openSession({ workspace, model, mode: "full-access", grants: [{ resource: "shell:**", rights: ["exec"] }] });
		const { texts, results } = await parsesDuring(async () => {
			expect(await session.send("count the lines")).toMatchObject({ status: "completed", toolCalls: { completed: 1 } });
		});
		expect(texts).toEqual(["wc -l README.md"]);
		// What every reader got is frozen all the way down: none can change what the next decides on.
		const parsed = results[0]!;
		expect(Object.isFrozen(parsed) && Object.isFrozen(parsed.commands) && Object.isFrozen(parsed.commands[0]) && Object.isFrozen(parsed.commands[0]!.args)).toBe(true);
	});

	it("parses each distinct text once per session, and never shares a parse between two texts", async () => {
		const model = new RecordingModel([shell("wc -l README.md"), shell("wc -l  README.md"), shell("wc -l README.md"), done]);
		const session = await runtime.openSession({ workspace, model, mode: "full-access", grants: [{ resource: "shell:**", rights: ["exec"] }] });
		const { texts } = await parsesDuring(async () => {
			expect(await session.send("count the lines three times")).toMatchObject({ status: "completed", toolCalls: { completed: 3 } });
		});
		expect(texts).toEqual(["wc -l README.md", "wc -l  README.md"]);
	});
});
