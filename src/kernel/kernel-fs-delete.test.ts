import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Authority } from "./authority/authority.js";
import { CapabilityDeniedError } from "./authority/authority-errors.js";
import { type GrantSpec, issueGrant } from "./authority/capability.js";
import { MODE_PRESETS } from "./authority/mode-presets.js";
import { taskCeiling } from "./authority/task-ceiling.js";
import { Budget } from "./budget/budget.js";
import { BudgetExhaustedError } from "./budget/budget-errors.js";
import { createKernel } from "./kernel.js";
import { FsPrimitiveError } from "./kernel-errors.js";
import { WorkspaceEscapeError } from "./primitives.js";
import { createTempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
	ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

function governed(specs: readonly GrantSpec[], ceiling = taskCeiling(), budget?: Budget) {
	const authority = new Authority({ grants: specs.map((s, i) => issueGrant(s, "host", "s", `g${i + 1}`)), ceiling });
	return createKernel({
		workspace: ws.dir,
		callId: "call-d",
		signal: ws.controller.signal,
		recordEffect: async (e) => {
			ws.effects.push(e);
		},
		authority: authority.forCall({ approved: false }),
		...(budget ? { budget } : {}),
	});
}

describe("fs.delete", () => {
	it("removes a file inside the workspace and records its hash, size and removal diff first", async () => {
		ws.put({ "src/a.txt": "one\ntwo\n" });
		const out = await ws.kernel.fs.delete("src/a.txt");
		expect(existsSync(path.join(ws.dir, "src/a.txt"))).toBe(false);
		expect(out).toMatchObject({ path: "src/a.txt", type: "file", bytes: 8, sha256: createHash("sha256").update("one\ntwo\n").digest("hex") });
		expect(ws.effects).toEqual([
			{
				call_id: "call-1",
				effect: "fs.delete",
				resource: "fs:src/a.txt",
				data: { type: "file", bytes: 8, sha256: out.sha256, diff: out.diff },
			},
		]);
		expect(out.diff).toContain("--- a/src/a.txt");
		expect(out.diff).toContain("+++ /dev/null");
		expect(out.diff).toContain("-one\n-two");
	});

	it("refuses escapes, the workspace root and directories, touching nothing", async () => {
		writeFileSync(path.join(ws.outside, "victim.txt"), "v");
		ws.put({ "dir/inner.txt": "i" });
		await expect(ws.kernel.fs.delete("../outside/victim.txt")).rejects.toBeInstanceOf(WorkspaceEscapeError);
		await expect(ws.kernel.fs.delete(path.join(ws.outside, "victim.txt"))).rejects.toBeInstanceOf(WorkspaceEscapeError);
		await expect(ws.kernel.fs.delete(".")).rejects.toThrow("the workspace root is a directory, not a file");
		await expect(ws.kernel.fs.delete(ws.dir)).rejects.toThrow("the workspace root is a directory, not a file");
		await expect(ws.kernel.fs.delete(`${ws.dir}/`)).rejects.toBeInstanceOf(FsPrimitiveError);
		await expect(ws.kernel.fs.delete("dir")).rejects.toThrow("dir is a directory; fs.delete removes only files");
		await expect(ws.kernel.fs.delete("dir/")).rejects.toThrow("fs.delete removes only files");
		await expect(ws.kernel.fs.delete("dir/..")).rejects.toThrow("the workspace root is a directory");
		await expect(ws.kernel.fs.delete("missing.txt")).rejects.toThrow("missing.txt does not exist");
		expect(existsSync(path.join(ws.outside, "victim.txt"))).toBe(true);
		expect(existsSync(path.join(ws.dir, "dir/inner.txt"))).toBe(true);
		expect(ws.effects).toEqual([]);
	});

	it("removes a symlink as the link itself, never its target, even when the target is outside", async () => {
		writeFileSync(path.join(ws.outside, "target.txt"), "keep me");
		ws.put({ "inside.txt": "keep too" });
		symlinkSync(path.join(ws.outside, "target.txt"), path.join(ws.dir, "out-link"));
		symlinkSync("inside.txt", path.join(ws.dir, "in-link"));
		const out = await ws.kernel.fs.delete("out-link");
		await ws.kernel.fs.delete("in-link");
		expect(out).toMatchObject({ path: "out-link", type: "symlink" });
		expect(existsSync(path.join(ws.dir, "out-link"))).toBe(false);
		expect(() => lstatSync(path.join(ws.dir, "in-link"))).toThrow();
		expect(readFileSync(path.join(ws.outside, "target.txt"), "utf8")).toBe("keep me");
		expect(readFileSync(path.join(ws.dir, "inside.txt"), "utf8")).toBe("keep too");
		expect(ws.effects[0]?.data).toMatchObject({ type: "symlink", symlink_target: path.join(ws.outside, "target.txt") });
	});

	it("refuses a file reached through a symlinked directory that leads outside", async () => {
		mkdirSync(path.join(ws.outside, "d"));
		writeFileSync(path.join(ws.outside, "d", "f.txt"), "f");
		symlinkSync(path.join(ws.outside, "d"), path.join(ws.dir, "d-link"));
		await expect(ws.kernel.fs.delete("d-link/f.txt")).rejects.toBeInstanceOf(WorkspaceEscapeError);
		expect(existsSync(path.join(ws.outside, "d", "f.txt"))).toBe(true);
	});

	it("is granted by workspace-write and full-access and refused by read-only and plan", async () => {
		for (const mode of ["workspace-write", "full-access"] as const) {
			ws.put({ "x.txt": mode });
			await governed(MODE_PRESETS[mode]).fs.delete("x.txt");
			expect(existsSync(path.join(ws.dir, "x.txt"))).toBe(false);
		}
		ws.put({ "x.txt": "stays" });
		for (const mode of ["read-only", "plan"] as const) {
			await expect(governed(MODE_PRESETS[mode]).fs.delete("x.txt")).rejects.toThrow("capability refused: delete on fs:x.txt: no grant covers it");
		}
		expect(readFileSync(path.join(ws.dir, "x.txt"), "utf8")).toBe("stays");
	});

	it("needs the delete right itself: a write grant is not enough, and a ceiling excluding it wins", async () => {
		ws.put({ "x.txt": "x", "keep/y.txt": "y" });
		await expect(governed([{ resource: "fs:**", rights: ["read", "write"] }]).fs.delete("x.txt")).rejects.toBeInstanceOf(CapabilityDeniedError);
		const ceiling = taskCeiling({ exclude: [{ resource: "fs:keep/**", rights: ["delete"] }] });
		const kernel = governed(MODE_PRESETS["workspace-write"], ceiling);
		await expect(kernel.fs.delete("keep/y.txt")).rejects.toThrow(/outside the task ceiling/);
		await kernel.fs.delete("x.txt");
		expect(existsSync(path.join(ws.dir, "keep/y.txt"))).toBe(true);
		expect(existsSync(path.join(ws.dir, "x.txt"))).toBe(false);
		expect(ws.effects.map((e) => e.resource)).toEqual(["fs:x.txt"]);
	});

	it("is budget-neutral: nothing is counted, and a write budget spent to its limit does not stop it", async () => {
		ws.put({ "a.txt": "aaaa", "b.txt": "b" });
		const budget = new Budget("session", { bytes_written: 4 });
		const kernel = governed(MODE_PRESETS["workspace-write"], taskCeiling(), budget);
		await kernel.fs.delete("a.txt");
		expect(budget.usage().bytes_written).toEqual({ used: 0, limit: 4 });
		await kernel.fs.write("c.txt", "cccc");
		await expect(kernel.fs.write("d.txt", "d")).rejects.toBeInstanceOf(BudgetExhaustedError);
		await kernel.fs.delete("b.txt");
		expect(existsSync(path.join(ws.dir, "b.txt"))).toBe(false);
		expect(budget.usage().bytes_written).toEqual({ used: 4, limit: 4 });
	});

	it("records a binary file's removal without a text diff", async () => {
		ws.put({ "bin.dat": new Uint8Array([1, 0, 2]) });
		const out = await ws.kernel.fs.delete("bin.dat");
		expect(out.bytes).toBe(3);
		expect(out.diff).toContain("(binary file deleted: no text diff)");
	});
});
