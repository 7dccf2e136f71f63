import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MODEL, type DefaultModel } from "../../models/download/default-model.js";
import { type FileServer, sha256, startFileServer } from "../../models/download/test-support/file-server.js";
import { UsageError } from "./cli-error.js";
import { defaultModelSpec, noModelLine, type OfferIo } from "./default-model-offer.js";

const BODY = randomBytes(40_000);
let server: FileServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function setup(answer: string, interactive = true, sha = sha256(BODY)) {
	server = await startFileServer({ "/org/tiny-GGUF/resolve/0123abcd/tiny.gguf": { body: BODY } });
	const model: DefaultModel = { reference: "org/tiny-GGUF/tiny.gguf", revision: "0123abcd", sha256: sha, bytes: BODY.length, title: "Tiny (GGUF)", licence: "MIT" };
	const env = { WARDEN_HF_ENDPOINT: server.url, WARDEN_CACHE_DIR: mkdtempSync(join(tmpdir(), "warden-offer-")) };
	const written: string[] = [];
	const asked: string[] = [];
	const io: OfferIo = {
		interactive,
		err: { isTTY: interactive, write: (text) => written.push(text) },
		ask: async (question) => {
			asked.push(question);
			return answer;
		},
	};
	return { model, env, io, written, asked, local: join(env.WARDEN_CACHE_DIR, "hf", "org", "tiny-GGUF", "tiny.gguf") };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
	const error = await promise.catch((e: unknown) => e);
	expect(error).toBeInstanceOf(UsageError);
	const message = (error as Error).message;
	expect(message).not.toContain("\n");
	return message;
}

describe("the default model offer", () => {
	it("on a terminal, names the model with its size and licence, and on yes downloads it with a progress bar", async () => {
		const { model, env, io, written, asked, local } = await setup("y");
		expect(await defaultModelSpec(env, io, model)).toBe(`llama:${local}`);
		expect(asked).toEqual(["Download it now? [y/N] "]);
		const shown = written.join("");
		expect(shown).toContain("Tiny (GGUF): 0.00 GiB, licence MIT");
		expect(shown).toContain(`into ${local}`);
		expect(shown).toMatch(/\rtiny\.gguf {2}100% ▕█{24}▏/);
		expect(shown).toContain(`saved to ${local} (sha256 checked)`);
		// Next time it is used from the cache without asking.
		const again = await setup("n");
		const cached = await defaultModelSpec({ ...again.env, WARDEN_CACHE_DIR: env.WARDEN_CACHE_DIR }, again.io, model);
		expect(cached).toBe(`llama:${local}`);
		expect(again.asked).toEqual([]);
	});

	it("on no, or without a terminal, one line says what to do", async () => {
		const declined = await setup("n");
		expect(await refusal(defaultModelSpec(declined.env, declined.io, declined.model))).toBe(noModelLine(declined.model));
		const piped = await setup("y", false);
		expect(await refusal(defaultModelSpec(piped.env, piped.io, piped.model))).toBe(noModelLine(piped.model));
		expect(piped.asked).toEqual([]);
		expect(server!.requests).toEqual([]);
		expect(noModelLine()).toBe(
			"no model configured: pass --model: ollama:<model> (Ollama running), lmstudio:<model> (LM Studio's server on), openai:<model> with OPENAI_API_KEY, anthropic:<model> with ANTHROPIC_API_KEY, or a profile from the config; or run warden in a terminal to download the default model, Qwen2.5 1.5B Instruct (Q4_K_M GGUF) (1.04 GiB, Apache-2.0)",
		);
	});

	it("offline or on a bad download, one line with the reason and the other ways", async () => {
		const { model, env, io, local } = await setup("yes", true, "f".repeat(64));
		expect(await refusal(defaultModelSpec(env, io, model))).toMatch(/^checksum mismatch for tiny\.gguf: .* the download was discarded; or pass --model: ollama:<model>/);
		expect(existsSync(local)).toBe(false);
		const offline = await setup("y");
		await server!.close();
		server = undefined;
		expect(await refusal(defaultModelSpec(offline.env, offline.io, offline.model))).toMatch(/^cannot reach 127\.0\.0\.1:\d+ to download tiny\.gguf \(connection refused\)/);
	});

	it("the real default is the pinned Qwen2.5 1.5B Instruct file", () => {
		expect(DEFAULT_MODEL).toMatchObject({ reference: "Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf", bytes: 1_117_320_736, licence: "Apache-2.0" });
	});
});
