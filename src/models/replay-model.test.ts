import { describe, expect, it } from "vitest";
import { ModelError, type ModelRequest } from "./provider.js";
import { ReplayModel } from "./replay-model.js";

const request: ModelRequest = { messages: [{ role: "user", content: "anything" }], tools: [] };
const live = () => new AbortController().signal;

const recorded = [
	{ turn: 1, step: 1, response: { text: "", toolCalls: [{ id: "call_1_1_1", name: "read_file", arguments: '{"path":"a.txt"}' }] } },
	{ turn: 1, step: 2, response: { text: "done", toolCalls: [], usage: { prompt_tokens: 10, completion_tokens: 2 } } },
	{ turn: 2, step: 1, response: { text: "second turn", toolCalls: [] } },
];

describe("ReplayModel", () => {
	it("answers each turn with that turn's recorded responses, in order, and streams their text", async () => {
		const model = new ReplayModel("openai:gpt-4o-mini", recorded);
		expect(model.spec).toBe("openai:gpt-4o-mini");
		expect(model.locality).toBe("in-process");
		model.beginTurn(1);
		expect(await model.complete(request, live())).toEqual(recorded[0]!.response);
		const deltas: string[] = [];
		expect(await model.complete({ ...request, onTextDelta: (d) => deltas.push(d) }, live())).toEqual(recorded[1]!.response);
		expect(deltas).toEqual(["done"]);
		expect(model.usage(1)).toEqual({ used: 2, recorded: 2 });
		model.beginTurn(2);
		expect((await model.complete(request, live())).text).toBe("second turn");
	});

	it("fails with one line naming the turn when asked for more than was recorded", async () => {
		const model = new ReplayModel("scripted:p.yaml", recorded);
		model.beginTurn(2);
		await model.complete(request, live());
		const error = await model.complete(request, live()).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).toBe("replay model: turn 2 asked for model response 2, but the recording holds 1");
	});

	it("refuses a request before any turn was begun, and an aborted one without using a response", async () => {
		const model = new ReplayModel("scripted:p.yaml", recorded);
		await expect(model.complete(request, live())).rejects.toThrow(/no recorded turn was begun/);
		model.beginTurn(1);
		const controller = new AbortController();
		controller.abort();
		await expect(model.complete(request, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
		expect(model.usage(1).used).toBe(0);
	});

	it("hands out copies: changing an answer does not change the recording", async () => {
		const model = new ReplayModel("scripted:p.yaml", recorded);
		model.beginTurn(1);
		const first = await model.complete(request, live());
		first.toolCalls[0]!.name = "changed";
		expect(recorded[0]!.response.toolCalls[0]!.name).toBe("read_file");
	});
});
