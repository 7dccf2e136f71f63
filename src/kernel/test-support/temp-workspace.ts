/** A real temporary workspace with a kernel bound to it and every effect it records, for tests. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { EffectRecord } from "../effects.js";
import { createKernel } from "../kernel.js";
import type { KernelPrimitives } from "../primitives.js";

export interface TempWorkspace {
	/** Real path of the workspace. */
	dir: string;
	/** Real path of a sibling directory outside the workspace, for escape tests. */
	outside: string;
	kernel: KernelPrimitives;
	effects: EffectRecord[];
	controller: AbortController;
	/** Writes files (relative path → content), creating parent directories. */
	put(files: Record<string, string | Uint8Array>): void;
	/** A kernel for another call on the same workspace, sharing the effect list. */
	kernelFor(opts: { callId: string; signal?: AbortSignal; env?: NodeJS.ProcessEnv }): KernelPrimitives;
	cleanup(): void;
}

export function createTempWorkspace(opts: { env?: NodeJS.ProcessEnv } = {}): TempWorkspace {
	const base = realpathSync(mkdtempSync(path.join(tmpdir(), "warden-ws-")));
	const dir = path.join(base, "ws");
	const outside = path.join(base, "outside");
	mkdirSync(dir);
	mkdirSync(outside);
	const effects: EffectRecord[] = [];
	const controller = new AbortController();
	const kernelFor = (k: { callId: string; signal?: AbortSignal; env?: NodeJS.ProcessEnv }) =>
		createKernel({
			workspace: dir,
			callId: k.callId,
			signal: k.signal ?? controller.signal,
			recordEffect: async (e) => {
				effects.push(e);
			},
			env: k.env ?? opts.env ?? process.env,
		});
	return {
		dir,
		outside,
		kernel: kernelFor({ callId: "call-1" }),
		effects,
		controller,
		put(files) {
			for (const [rel, content] of Object.entries(files)) {
				const abs = path.join(dir, rel);
				mkdirSync(path.dirname(abs), { recursive: true });
				writeFileSync(abs, content);
			}
		},
		kernelFor,
		cleanup() {
			rmSync(base, { recursive: true, force: true });
		},
	};
}
