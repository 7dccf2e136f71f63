import { readFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EditorFiles } from "../providers/editor-fs-provider.js";
import { createKernel } from "./kernel.js";
import { FileTooLargeError, InvalidPathError } from "./kernel-errors.js";
import type { EffectRecord } from "./effects.js";
import { WorkspaceEscapeError } from "./primitives.js";
import { createTempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

/** An editor holding unsaved buffers: what it reads is the buffer, what it writes stays in the buffer. */
function editor(buffers: Map<string, string>, log: string[]): EditorFiles {
	return {
		name: "test-editor",
		async readTextFile(p) {
			log.push(`read ${p}`);
			const text = buffers.get(p);
			if (text === undefined) throw new Error(`no buffer for ${p}`);
			return text;
		},
		async writeTextFile(p, content) {
			log.push(`write ${p}`);
			buffers.set(p, content);
		},
	};
}

let ws: TempWorkspace;
beforeEach(() => {
	ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

function kernelWith(files: EditorFiles, effects: EffectRecord[]) {
	return createKernel({ workspace: ws.dir, callId: "call-ed", signal: new AbortController().signal, recordEffect: async (e) => void effects.push(e), files });
}

describe("fs primitives through an editor's buffers", () => {
	it("reads the unsaved buffer, not the disk", async () => {
		ws.put({ "a.txt": "on disk\n" });
		const log: string[] = [];
		const kernel = kernelWith(editor(new Map([[path.join(ws.dir, "a.txt"), "unsaved edit\n"]]), log), []);
		const file = await kernel.fs.read("a.txt");
		expect(file.content).toBe("unsaved edit\n");
		expect(log).toEqual([`read ${path.join(ws.dir, "a.txt")}`]);
	});

	it("writes into the buffer, diffing against the buffer, and the effect record names the editor", async () => {
		ws.put({ "a.txt": "on disk\n" });
		const buffers = new Map([[path.join(ws.dir, "a.txt"), "unsaved\n"]]);
		const effects: EffectRecord[] = [];
		const kernel = kernelWith(editor(buffers, []), effects);
		const outcome = await kernel.fs.write("a.txt", "rewritten\n");
		expect(buffers.get(path.join(ws.dir, "a.txt"))).toBe("rewritten\n");
		// The disk is the editor's to save: the primitive did not touch it.
		expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("on disk\n");
		expect(outcome.diff).toContain("-unsaved");
		expect(outcome.diff).toContain("+rewritten");
		const write = effects.find((e) => e.effect === "fs.write");
		expect(write?.data).toMatchObject({ via: "test-editor", created: false });
	});

	it("keeps confinement and limits: escapes and oversized buffers are refused before the editor is asked", async () => {
		const log: string[] = [];
		const outsideFile = path.join(ws.outside, "x.txt");
		const kernel = kernelWith(editor(new Map([[outsideFile, "secret"]]), log), []);
		await expect(kernel.fs.read(outsideFile)).rejects.toBeInstanceOf(WorkspaceEscapeError);
		await expect(kernel.fs.write("../outside/x.txt", "x")).rejects.toBeInstanceOf(WorkspaceEscapeError);
		await expect(kernel.fs.read("a\0b")).rejects.toBeInstanceOf(InvalidPathError);
		expect(log).toEqual([]);
		ws.put({ "big.txt": "small on disk" });
		const big = kernelWith(editor(new Map([[path.join(ws.dir, "big.txt"), "0123456789"]]), []), []);
		await expect(big.fs.read("big.txt", { maxBytes: 9 })).rejects.toBeInstanceOf(FileTooLargeError);
	});

	it("an editor that offers only reads leaves writes to the disk", async () => {
		ws.put({ "a.txt": "old\n" });
		const effects: EffectRecord[] = [];
		const kernel = kernelWith({ name: "read-only-editor", readTextFile: async () => "buffer\n" }, effects);
		await kernel.fs.write("a.txt", "new\n");
		expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("new\n");
		expect(effects.find((e) => e.effect === "fs.write")?.data).not.toHaveProperty("via");
	});
});
