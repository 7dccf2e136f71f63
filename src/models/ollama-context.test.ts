import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createModel } from "./model-spec.js";
import { contextWindowFromShow, ollamaContextWindow } from "./ollama-context.js";

let server: Server | undefined;
afterEach(async () => {
	await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
	server = undefined;
});

/** An Ollama stand-in on 127.0.0.1 answering /api/show; records what it was asked. */
async function ollama(answer: (model: string) => { status: number; body: unknown }): Promise<{ url: string; asked: string[] }> {
	const asked: string[] = [];
	server = createServer((req, res) => {
		let text = "";
		req.on("data", (chunk) => {
			text += chunk;
		});
		req.on("end", () => {
			const model = String((JSON.parse(text || "{}") as { model?: unknown }).model);
			asked.push(`${req.method} ${req.url} ${model}`);
			const { status, body } = answer(model);
			res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
		});
	});
	await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
	return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, asked };
}

describe("contextWindowFromShow", () => {
	it("takes the Modelfile's num_ctx first: it is what Ollama allocates", () => {
		expect(contextWindowFromShow({ parameters: "stop <|im_end|>\nnum_ctx 16384", model_info: { "qwen2.context_length": 32768 } })).toBe(16384);
	});
	it("else the architecture's context_length", () => {
		expect(contextWindowFromShow({ parameters: "temperature 0.7", model_info: { "general.architecture": "llama", "llama.context_length": 131072 } })).toBe(131072);
	});
	it("leaves the window unknown when neither figure is usable", () => {
		expect(contextWindowFromShow({ parameters: "num_ctx lots", model_info: { "llama.context_length": -1 } })).toBeUndefined();
		expect(contextWindowFromShow("not an object")).toBeUndefined();
		expect(contextWindowFromShow({})).toBeUndefined();
	});
});

describe("ollamaContextWindow", () => {
	it("asks Ollama's own API under the root of the /v1 base URL, for the named model", async () => {
		const { url, asked } = await ollama(() => ({ status: 200, body: { model_info: { "qwen2.context_length": 32768 } } }));
		expect(await ollamaContextWindow(`${url}/v1`, "qwen2.5-coder:7b")).toBe(32768);
		expect(asked).toEqual(["POST /api/show qwen2.5-coder:7b"]);
	});
	it("an unknown model (404) or an Ollama that is not there leaves the window unknown", async () => {
		const { url } = await ollama(() => ({ status: 404, body: { error: "model not found" } }));
		expect(await ollamaContextWindow(`${url}/v1`, "nope")).toBeUndefined();
		expect(await ollamaContextWindow("http://127.0.0.1:9/v1", "qwen")).toBeUndefined();
	});
	it("an ollama: model made through createModel carries the discovered window; a profile's stated window wins", async () => {
		const { url, asked } = await ollama(() => ({ status: 200, body: { parameters: "num_ctx 8192" } }));
		const model = await createModel("ollama:qwen2.5-coder", { OLLAMA_HOST: url });
		expect(model.contextWindow).toBe(8192);
		const profiled = await createModel("local", { OLLAMA_HOST: url }, { profiles: { local: { profile: { provider: "ollama", model: "qwen2.5-coder", context_window: 4096 }, source: "test" } } });
		expect(profiled.contextWindow).toBe(4096);
		expect(asked).toHaveLength(1);
	});
});
