import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError, type ModelRequest } from "./provider.js";
import { SCRIPTED_PLAN_FINISHED, SCRIPTED_PLAN_SCHEMA, ScriptedModel } from "./scripted.js";

const request: ModelRequest = { messages: [{ role: "user", content: "anything" }], tools: [] };
const live = () => new AbortController().signal;

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(join(tmpdir(), "warden-scripted-"));
});
afterAll(async () => {
	await rm(dir, { recursive: true, force: true });
});

async function planFile(name: string, text: string): Promise<string> {
	const file = join(dir, name);
	await writeFile(file, text);
	return file;
}

async function loadError(name: string, text: string): Promise<ModelError> {
	const file = await planFile(name, text);
	const error = await ScriptedModel.load(file).catch((e: unknown) => e);
	expect(error).toBeInstanceOf(ModelError);
	const message = (error as ModelError).message;
	expect(message).not.toContain("\n");
	expect(message).toContain(`scripted plan ${file}:`);
	return error as ModelError;
}

describe("ScriptedModel.load", () => {
	it("reads a JSON plan and answers its steps in order, whatever the input", async () => {
		const file = await planFile(
			"plan.json",
			JSON.stringify({
				steps: [
					{ tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] },
					{ text: "done reading" },
				],
			}),
		);
		const model = await ScriptedModel.load(file);
		expect(model.spec).toBe(`scripted:${file}`);
		const first = await model.complete(request, live());
		expect(first).toEqual({ text: "", toolCalls: [{ name: "read_file", arguments: { path: "notes.md" } }] });
		const second = await model.complete({ messages: [], tools: [] }, live());
		expect(second).toEqual({ text: "done reading", toolCalls: [] });
	});

	it("reads a YAML plan with ids, raw string arguments and a step that has text and calls", async () => {
		const file = await planFile(
			"plan.yaml",
			[
				"# comments are fine in YAML",
				"steps:",
				"  - text: Let me look.",
				"    tool_calls:",
				"      - id: call-1",
				"        name: list_dir",
				"        arguments: { path: . }",
				"      - name: write_file",
				"        arguments: '{\"path\": \"a.txt\", \"content\": '",
				"  - text: All done.",
			].join("\n"),
		);
		const model = await ScriptedModel.load(file);
		const first = await model.complete(request, live());
		expect(first.text).toBe("Let me look.");
		expect(first.toolCalls).toEqual([
			{ id: "call-1", name: "list_dir", arguments: { path: "." } },
			{ name: "write_file", arguments: '{"path": "a.txt", "content": ' },
		]);
		expect((await model.complete(request, live())).text).toBe("All done.");
	});

	it("detects JSON content in a file without a .json extension", async () => {
		const file = await planFile("plan.txt", '{"steps": [{"text": "hi"}]}');
		const model = await ScriptedModel.load(file);
		expect((await model.complete(request, live())).text).toBe("hi");
	});

	it("names a missing file in one line", async () => {
		const file = join(dir, "absent.yaml");
		await expect(ScriptedModel.load(file)).rejects.toThrow(new ModelError(`scripted plan ${file}: file not found`));
	});

	it("reports unparseable YAML and JSON in one line", async () => {
		const yaml = await loadError("bad.yaml", "steps: [\n  - text: a\nb: c: d\n");
		expect(yaml.message).toMatch(/is not valid YAML: .*line \d+/);
		const json = await loadError("bad.json", '{"steps": [');
		expect(json.message).toMatch(/is not valid JSON: /);
	});

	it("reports each structural problem with the path to it", async () => {
		const cases: [string, string][] = [
			["", "must be an object with a \"steps\" list, got null"],
			["- text: a", "must be an object with a \"steps\" list, got a list"],
			["stepz: []", 'the plan has unknown key "stepz"'],
			["steps: {}", "steps must be a list, got an object"],
			["steps: [hello]", "steps[0] must be an object, got a string"],
			["steps: [{}]", 'steps[0] needs "text", "tool_calls" or both'],
			["steps: [{text: 3}]", "steps[0].text must be a string"],
			["steps: [{text: a}, {tool_calls: {name: x}}]", "steps[1].tool_calls must be a list"],
			[
				"steps: [{text: a}, {text: b}, {tool_calls: [{arguments: {}}]}]",
				"steps[2].tool_calls[0].name must be a string",
			],
			["steps: [{tool_calls: [{name: ''}]}]", "steps[0].tool_calls[0].name must not be empty"],
			["steps: [{tool_calls: [{name: x, arguments: [1]}]}]", "steps[0].tool_calls[0].arguments must be an object or a string, got a list"],
			["steps: [{tool_calls: [{name: x, id: 7}]}]", "steps[0].tool_calls[0].id must be a non-empty string"],
			["steps: [{tool_calls: [{name: x, args: {}}]}]", 'steps[0].tool_calls[0] has unknown key "args"'],
		];
		for (const [index, [text, problem]] of cases.entries()) {
			const error = await loadError(`case-${index}.yaml`, text);
			expect(error.message).toContain(problem);
		}
	});
});

describe("ScriptedModel.complete", () => {
	it("answers a fixed final text once the steps run out, and keeps answering it", async () => {
		const model = ScriptedModel.fromPlan({ steps: [{ text: "only step" }] }, "scripted:inline");
		expect(model.remainingSteps).toBe(1);
		await model.complete(request, live());
		expect(model.remainingSteps).toBe(0);
		for (let i = 0; i < 2; i++) {
			expect(await model.complete(request, live())).toEqual({ text: SCRIPTED_PLAN_FINISHED, toolCalls: [] });
		}
	});

	it("streams the step text through onTextDelta", async () => {
		const model = ScriptedModel.fromPlan({ steps: [{ text: "streamed" }, { tool_calls: [{ name: "x" }] }] }, "inline");
		const deltas: string[] = [];
		const streaming = { ...request, onTextDelta: (delta: string) => deltas.push(delta) };
		await model.complete(streaming, live());
		const second = await model.complete(streaming, live());
		expect(deltas).toEqual(["streamed"]);
		expect(second.toolCalls).toEqual([{ name: "x", arguments: {} }]);
	});

	it("hands out copies, so a consumer mutating arguments cannot change the plan", async () => {
		const model = ScriptedModel.fromPlan({ steps: [{ tool_calls: [{ name: "x", arguments: { n: 1 } }] }] }, "inline");
		const response = await model.complete(request, live());
		(response.toolCalls[0]?.arguments as { n: number }).n = 2;
		expect(model.plan.steps[0]?.tool_calls?.[0]?.arguments).toEqual({ n: 1 });
	});

	it("rejects with an AbortError when the signal has fired, without consuming a step", async () => {
		const model = ScriptedModel.fromPlan({ steps: [{ text: "kept" }] }, "inline");
		const controller = new AbortController();
		controller.abort();
		await expect(model.complete(request, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
		expect((await model.complete(request, live())).text).toBe("kept");
	});

	it("validates in-memory plans with the spec as the label", () => {
		expect(() => ScriptedModel.fromPlan({ steps: [{ tool_calls: [{}] }] }, "scripted:test")).toThrow(
			new ModelError("scripted plan scripted:test: steps[0].tool_calls[0].name must be a string"),
		);
	});
});

describe("SCRIPTED_PLAN_SCHEMA", () => {
	const validate = new Ajv2020({ strict: true }).compile(SCRIPTED_PLAN_SCHEMA);

	it("accepts the plans the loader accepts", () => {
		const plans = [
			{ steps: [] },
			{ description: "demo", steps: [{ text: "a" }, { tool_calls: [{ id: "c1", name: "x", arguments: "{" }] }] },
			{ steps: [{ text: "a", tool_calls: [{ name: "x", arguments: { k: [1] } }] }] },
		];
		for (const plan of plans) {
			expect(validate(plan)).toBe(true);
			expect(() => ScriptedModel.fromPlan(plan, "inline")).not.toThrow();
		}
	});

	it("accepts the examples in docs/scripted-plans.md", async () => {
		const doc = await readFile(fileURLToPath(new URL("../../docs/scripted-plans.md", import.meta.url)), "utf8");
		const blocks = [...doc.matchAll(/```(yaml|json)\n([\s\S]*?)```/g)];
		expect(blocks.map((block) => block[1])).toEqual(["yaml", "json"]);
		for (const [, kind, text] of blocks) {
			const file = await planFile(`doc-example.${kind}`, text ?? "");
			const model = await ScriptedModel.load(file);
			expect(validate(model.plan)).toBe(true);
			expect(model.remainingSteps).toBeGreaterThan(1);
		}
	});

	it("rejects the plans the loader rejects", () => {
		const plans = [
			{},
			{ steps: [{}] },
			{ steps: [{ text: 1 }] },
			{ steps: [{ tool_calls: [{ name: "x", arguments: 5 }] }] },
			{ steps: [{ tool_calls: [{ name: "" }] }] },
			{ steps: [{ text: "a", extra: true }] },
		];
		for (const plan of plans) {
			expect(validate(plan)).toBe(false);
			expect(() => ScriptedModel.fromPlan(plan, "inline")).toThrow(ModelError);
		}
	});
});
