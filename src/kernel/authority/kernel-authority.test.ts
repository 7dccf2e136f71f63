import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import type { EffectRecord } from "../effects.js";
import { createKernel } from "../kernel.js";
import { Authority } from "./authority.js";
import { CapabilityDeniedError } from "./authority-errors.js";
import { type GrantSpec, issueGrant } from "./capability.js";
import { taskCeiling } from "./task-ceiling.js";

const shell = await ShellParser.create();
let dir: string;
let effects: EffectRecord[];

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-cap-")));
	mkdirSync(join(dir, "secrets"));
	writeFileSync(join(dir, "secrets", "key"), "k\n");
	writeFileSync(join(dir, "notes.md"), "n\n");
	effects = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function kernelWith(specs: GrantSpec[], ceiling = taskCeiling()) {
	const authority = new Authority({ grants: specs.map((s, i) => issueGrant(s, "host", "s", `g${i + 1}`)), ceiling, shell });
	const call = authority.forCall({ approved: false });
	const kernel = createKernel({
		workspace: dir,
		callId: "c1",
		signal: new AbortController().signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		authority: call,
	});
	return { kernel, call };
}

describe("kernel primitives under the capability layer", () => {
	it("refuses before touching anything, on the real path, and records the refusal for the call", async () => {
		const { kernel, call } = kernelWith([{ resource: "fs:**", rights: ["read"] }]);
		await expect(kernel.fs.write("./secrets/../x.txt", "x")).rejects.toThrow("capability refused: write on fs:x.txt: no grant covers it");
		expect(existsSync(join(dir, "x.txt"))).toBe(false);
		expect(effects).toEqual([]);
		expect(call.refusals.map((r) => r.resource)).toEqual(["fs:x.txt"]);
		expect((await kernel.fs.read("notes.md")).content).toBe("n\n");
	});

	it("checks every sub-command of a shell command before any of it runs", async () => {
		const { kernel } = kernelWith([{ resource: "shell:touch *", rights: ["exec"] }]);
		const run = kernel.shell.exec("touch made.txt && rm -f notes.md", { timeoutMs: 5000, maxOutputBytes: 1000 });
		await expect(run).rejects.toBeInstanceOf(CapabilityDeniedError);
		await expect(run).rejects.toThrow("exec on shell:rm -f notes.md");
		expect(existsSync(join(dir, "made.txt"))).toBe(false);
		expect(existsSync(join(dir, "notes.md"))).toBe(true);
	});

	it("admits a shell command's visible writes as the fs writes they are", async () => {
		const { kernel, call } = kernelWith([{ resource: "shell:*", rights: ["exec"] }, { resource: "fs:**", rights: ["read"] }]);
		const run = kernel.shell.exec("echo x > ./secrets/../out.txt", { timeoutMs: 5000, maxOutputBytes: 1000 });
		await expect(run).rejects.toThrow("capability refused: write on fs:out.txt: no grant covers it");
		expect(existsSync(join(dir, "out.txt"))).toBe(false);
		expect(call.refusals.map((r) => r.resource)).toEqual(["fs:out.txt"]);
		const ceiling = taskCeiling({ exclude: [{ resource: "fs:secrets/**", rights: ["delete"] }] });
		const capped = kernelWith([{ resource: "shell:*", rights: ["exec"] }, { resource: "fs:**", rights: ["read", "write", "delete"] }], ceiling);
		await expect(capped.kernel.shell.exec("rm -f secrets/key", { timeoutMs: 5000, maxOutputBytes: 1000 })).rejects.toThrow(/outside the task ceiling/);
		expect(existsSync(join(dir, "secrets", "key"))).toBe(true);
	});

	it("leaves names the holder may not read out of a walk", async () => {
		const { kernel } = kernelWith([{ resource: "fs:**", rights: ["read"] }], taskCeiling({ exclude: [{ resource: "fs:secrets/**", rights: ["read"] }] }));
		expect((await kernel.fs.walk(".", { limit: 10 })).paths).toEqual(["notes.md"]);
		await expect(kernel.fs.read("secrets/key")).rejects.toThrow(/outside the task ceiling/);
		await expect(kernel.fs.list("secrets")).rejects.toThrow(/outside the task ceiling/);
	});
});
