import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Authority } from "./authority/authority.js";
import { type GrantSpec, issueGrant } from "./authority/capability.js";
import type { EffectRecord } from "./effects.js";
import { createKernel } from "./kernel.js";
import type { LimitRecord, SyscallRecord } from "./kernel-jit.js";
import { createTempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
	ws = createTempWorkspace();
	ws.put({ "notes.txt": "hello from the workspace", "secret/key.txt": "k" });
});
afterEach(() => ws.cleanup());

function kernelWith(grants: readonly GrantSpec[], callId = "call-j") {
	const syscalls: SyscallRecord[] = [];
	const limits: LimitRecord[] = [];
	const effects: EffectRecord[] = [];
	const authority = new Authority({ grants: grants.map((g, i) => issueGrant(g, "host", "s", `g${i + 1}`)) }).forCall({ approved: false });
	const kernel = createKernel({
		workspace: ws.dir,
		callId,
		signal: new AbortController().signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		authority,
		jitEvidence: {
			syscall: async (r) => {
				syscalls.push(r);
			},
			limit: async (r) => {
				limits.push(r);
			},
		},
	});
	return { kernel, syscalls, limits, effects, authority };
}

/** A tool that makes one syscall and reports what came back or the error it saw, as a caller would. */
const PROBE = `export default async function (input: { name: string; args: unknown }, syscall: (n: string, a: unknown) => Promise<any>) {
	try { return { ok: await syscall(input.name, input.args) }; } catch (e) { return { error: (e as Error).message }; }
}`;

async function probe(k: ReturnType<typeof kernelWith>, name: string, args: unknown) {
	const { code } = k.kernel.jit.compile(PROBE);
	const outcome = await k.kernel.jit.run(code, { name, args }, { tool: "probe" });
	if (!outcome.ok) throw new Error(outcome.error);
	return outcome.value as { ok?: Record<string, unknown>; error?: string };
}

async function directError(run: () => Promise<unknown>): Promise<string> {
	try {
		await run();
	} catch (err) {
		return (err as Error).message;
	}
	throw new Error("the direct primitive did not fail");
}

describe("jit.run syscalls", () => {
	it("reads a workspace file through fs.read and records the syscall", async () => {
		const k = kernelWith([{ resource: "fs:**", rights: ["read"] }]);
		const seen = await probe(k, "fs.read", { path: "notes.txt" });
		expect(seen.ok).toMatchObject({ path: "notes.txt", content: "hello from the workspace" });
		expect(k.syscalls).toEqual([{ call_id: "call-j", tool: "probe", syscall: "fs.read", outcome: "ok" }]);
	});

	it("refuses ../outside exactly like the primitive read_file uses", async () => {
		ws.put({});
		const k = kernelWith([{ resource: "fs:**", rights: ["read"] }]);
		const seen = await probe(k, "fs.read", { path: "../outside/x.txt" });
		const direct = await directError(() => kernelWith([{ resource: "fs:**", rights: ["read"] }]).kernel.fs.read("../outside/x.txt"));
		expect(seen.error).toBe(`fs.read: ${direct}`);
		expect(k.syscalls).toEqual([{ call_id: "call-j", tool: "probe", syscall: "fs.read", outcome: "error", error: direct }]);
	});

	it("refuses a path the caller's capabilities do not cover, as the primitive does, and the refusal is the call's", async () => {
		const k = kernelWith([{ resource: "fs:notes.txt", rights: ["read"] }]);
		const seen = await probe(k, "fs.read", { path: "secret/key.txt" });
		const direct = await directError(() => kernelWith([{ resource: "fs:notes.txt", rights: ["read"] }]).kernel.fs.read("secret/key.txt"));
		expect(seen.error).toBe(`fs.read: ${direct}`);
		expect(seen.error).not.toContain("\"k\"");
		// The tool caught it, but the call's authority remembers the refusal: the turn loop fails the call.
		expect(k.authority.refusals).toHaveLength(1);
	});

	it("refuses a write under a read-only authority and writes nothing", async () => {
		const k = kernelWith([{ resource: "fs:**", rights: ["read"] }]);
		const seen = await probe(k, "fs.write", { path: "notes.txt", content: "owned" });
		expect(seen.error).toMatch(/^fs\.write: /);
		expect((await ws.kernel.fs.read("notes.txt")).content).toBe("hello from the workspace");
		expect(k.effects).toEqual([]);
		expect(k.syscalls[0]).toMatchObject({ syscall: "fs.write", outcome: "error" });
	});

	it("writes under a write grant, with the effect recorded like write_file's", async () => {
		const k = kernelWith([{ resource: "fs:**", rights: ["read", "write"] }]);
		const seen = await probe(k, "fs.write", { path: "out.txt", content: "made by a jit tool" });
		expect(seen.ok).toMatchObject({ path: "out.txt", created: true });
		expect(k.effects.map((e) => [e.effect, e.resource, e.call_id])).toEqual([["fs.write", "fs:out.txt", "call-j"]]);
	});

	it("refuses net.fetch without a grant", async () => {
		const k = kernelWith([{ resource: "fs:**", rights: ["read"] }]);
		const seen = await probe(k, "net.fetch", { url: "http://127.0.0.1:9/" });
		expect(seen.error).toMatch(/^net\.fetch: /);
		expect(k.syscalls[0]).toMatchObject({ syscall: "net.fetch", outcome: "error" });
	});

	it("refuses shell.exec without an exec grant", async () => {
		const k = kernelWith([{ resource: "fs:**", rights: ["read"] }]);
		const seen = await probe(k, "shell.exec", { command: "cat /etc/passwd" });
		expect(seen.error).toMatch(/^shell\.exec: /);
	});

	it("refuses a syscall name that is not on the list, inside the tool", async () => {
		const k = kernelWith([{ resource: "fs:**", rights: ["read"] }]);
		const seen = await probe(k, "process.exit", {});
		expect(seen.error).toMatch(/^process\.exit: unknown syscall "process\.exit"/);
		expect(await probe(k, "fs.read", "not an object")).toEqual({ error: "fs.read: syscall arguments must be an object" });
	});

	it("records a limit hit as evidence", async () => {
		const k = kernelWith([]);
		const { code } = k.kernel.jit.compile("export default async function () { for (;;) {} }");
		const outcome = await k.kernel.jit.run(code, {}, { tool: "spin", limits: { deadlineMs: 100 } });
		expect(outcome).toMatchObject({ ok: false, limit: "deadline" });
		expect(k.limits).toEqual([{ call_id: "call-j", tool: "spin", limit: "deadline", error: "deadline of 100 ms exceeded" }]);
	});

	it("reports a compile error with its line and column", () => {
		const k = kernelWith([]);
		expect(() => k.kernel.jit.compile("export default async function () {\n\tlet = ;\n}")).toThrow(/^tool\.ts:2:\d+: /);
	});
});
