import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeSyntheticGguf } from "../llama/synthetic-gguf.js";
import { createModel } from "../model-spec.js";
import { TEST_LLAMA_ENV } from "../test-support/llama-test-runtime.js";
import { DEFAULT_MODEL } from "./default-model.js";
import { fetchHfModel } from "./fetch-hf-model.js";
import { type FileServer, sha256, startFileServer } from "./test-support/file-server.js";

const GGUF = Buffer.concat([Buffer.from("GGUF"), randomBytes(50_000)]);
let server: FileServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function hub() {
	server = await startFileServer({ "/org/tiny-GGUF/resolve/main/tiny.gguf": { body: GGUF }, "/org/tiny-GGUF/resolve/abc123/tiny.gguf": { body: GGUF } });
	const cache = mkdtempSync(join(tmpdir(), "warden-cache-"));
	return { env: { WARDEN_HF_ENDPOINT: server.url, WARDEN_CACHE_DIR: cache, HF_TOKEN: "hf_secret" }, cache };
}

describe("fetchHfModel", () => {
	it("downloads hf:<repo>/<file> from the endpoint into the cache, checked against Hugging Face's X-Linked-ETag", async () => {
		const { env, cache } = await hub();
		const result = await fetchHfModel("org/tiny-GGUF/tiny.gguf", env);
		expect(result).toMatchObject({ path: join(cache, "hf", "org", "tiny-GGUF", "tiny.gguf"), sha256: sha256(GGUF), checkedAgainst: "server" });
		expect(readFileSync(result.path).equals(GGUF)).toBe(true);
		// HF_TOKEN goes with the request to the hub (gated repositories need it).
		expect(server!.requests[0]).toMatchObject({ path: "/org/tiny-GGUF/resolve/main/tiny.gguf", headers: { authorization: "Bearer hf_secret" } });
	});

	it("downloads a pinned revision, checked against the pinned sha256", async () => {
		const { env } = await hub();
		const result = await fetchHfModel("org/tiny-GGUF/tiny.gguf", env, { revision: "abc123", sha256: sha256(GGUF) });
		expect(result.checkedAgainst).toBe("pinned");
		expect(server!.requests[0]?.path).toBe("/org/tiny-GGUF/resolve/abc123/tiny.gguf");
	});

	it("draws the progress bar on a terminal and ends its line", async () => {
		const { env } = await hub();
		const drawn: string[] = [];
		await fetchHfModel("org/tiny-GGUF/tiny.gguf", env, { progressTo: { isTTY: true, write: (t) => drawn.push(t) } });
		expect(drawn[0]).toMatch(/^\rtiny\.gguf {4}0% ▕/);
		expect(drawn.at(-2)).toMatch(/^\rtiny\.gguf {2}100% ▕█{24}▏ 0\.0\/0\.0 MB$/);
		expect(drawn.at(-1)).toBe("\n");
	});

	it("llama:hf: specs are fetched into the cache, then loaded in-process from the local path", async () => {
		const dir = mkdtempSync(join(tmpdir(), "warden-hf-gguf-"));
		await writeSyntheticGguf(join(dir, "tiny.gguf"));
		const gguf = readFileSync(join(dir, "tiny.gguf"));
		server = await startFileServer({ "/org/tiny-GGUF/resolve/main/tiny.gguf": { body: gguf } });
		const cache = mkdtempSync(join(tmpdir(), "warden-cache-"));
		const env = { WARDEN_HF_ENDPOINT: server.url, WARDEN_CACHE_DIR: cache, ...TEST_LLAMA_ENV };
		const fetched: string[] = [];
		const path = join(cache, "hf", "org", "tiny-GGUF", "tiny.gguf");
		const model = await createModel("llama:hf:org/tiny-GGUF/tiny.gguf", env, {
			fetchHf: async (reference) => {
				fetched.push(reference);
				return (await fetchHfModel(reference, env)).path;
			},
		});
		try {
			expect(fetched).toEqual(["org/tiny-GGUF/tiny.gguf"]);
			expect(readFileSync(path).equals(gguf)).toBe(true);
			expect(model.spec).toBe(`llama:${path}`);
			expect(model.locality).toBe("in-process");
		} finally {
			await (model as { dispose?: () => Promise<void> }).dispose?.();
		}
	}, 60_000);

	it("the default model is pinned: a commit, a sha256 and its size", () => {
		expect(DEFAULT_MODEL.revision).toMatch(/^[0-9a-f]{40}$/);
		expect(DEFAULT_MODEL.sha256).toMatch(/^[0-9a-f]{64}$/);
		expect(DEFAULT_MODEL.reference.endsWith(".gguf")).toBe(true);
		expect(DEFAULT_MODEL.licence).toBe("Apache-2.0");
	});
});
