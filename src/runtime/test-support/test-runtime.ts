/** A real Runtime over a fresh temp workspace and state dir, for the runtime's own tests. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Runtime } from "../runtime.js";

export interface TestRuntime {
	root: string;
	workspace: string;
	runtime: Runtime;
}

/** Creates `<tmp>/ws` with `files` (relative path → content) and `dirs`, and opens a Runtime on `<tmp>/state`. */
export async function openTestRuntime(prefix: string, setup: { files?: Record<string, string>; dirs?: string[] } = {}): Promise<TestRuntime> {
	const root = await mkdtemp(join(tmpdir(), prefix));
	const workspace = join(root, "ws");
	await mkdir(workspace, { recursive: true });
	for (const dir of setup.dirs ?? []) await mkdir(join(workspace, dir), { recursive: true });
	for (const [path, content] of Object.entries(setup.files ?? {})) {
		await mkdir(dirname(join(workspace, path)), { recursive: true });
		await writeFile(join(workspace, path), content);
	}
	const runtime = await Runtime.open({ stateDir: join(root, "state"), env: process.env });
	return { root, workspace, runtime };
}

export async function closeTestRuntime(t: { root: string; runtime: Runtime }): Promise<void> {
	await t.runtime.close();
	await rm(t.root, { recursive: true, force: true });
}
