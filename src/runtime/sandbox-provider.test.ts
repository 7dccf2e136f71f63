/** WARDEN_SANDBOX_PROVIDER: the host forces a provider; session.started and every shell effect name the one in use. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeSandbox } from "../providers/sandbox/sandbox-probe.js";
import { Runtime } from "./runtime.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";

const roots: string[] = [];
afterEach(() => {
	for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function openWith(value: string | undefined): Promise<{ runtime: Runtime; workspace: string }> {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "warden-sandbox-provider-")));
	roots.push(root);
	const workspace = join(root, "ws");
	mkdirSync(workspace);
	writeFileSync(join(workspace, "README.md"), "# demo\n");
	const env = { ...process.env, WARDEN_SANDBOX_PROVIDER: value };
	if (value === undefined) delete env.WARDEN_SANDBOX_PROVIDER;
	return { runtime: await Runtime.open({ stateDir: join(root, "state"), env }), workspace };
}

const both = (await probeSandbox("bwrap")).available && (await probeSandbox("landlock")).available;

describe.skipIf(!both)("WARDEN_SANDBOX_PROVIDER", () => {
	it.each([
		[undefined, "bwrap"],
		["bwrap", "bwrap"],
		["landlock", "landlock"],
	])("set to %s, runs shell commands under %s and says so on session.started and on the effect", async (value, provider) => {
		const { runtime, workspace } = await openWith(value);
		try {
			const model = new RecordingModel([callsStep({ name: "shell", arguments: { command: "cat README.md" } }), { text: "done", toolCalls: [] }]);
			const session = await runtime.openSession({ workspace, model });
			expect(await session.send("go")).toMatchObject({ status: "completed" });
			const audit = await runtime.listAudit({ session: session.id });
			expect(audit.find((r) => r.kind === "session.started")!.data.sandbox).toEqual({ available: true, provider, profile: "workspace-write" });
			const effect = audit.find((r) => r.kind === "effect" && r.data.effect === "shell.exec")!;
			expect(effect.data.sandbox).toEqual({ provider, profile: "workspace-write", network: false });
		} finally {
			await runtime.close();
		}
	});

	it("set to none, runs no sandbox, so the session says why and a shell call is asked about", async () => {
		const { runtime, workspace } = await openWith("none");
		try {
			const session = await runtime.openSession({ workspace, model: new RecordingModel([{ text: "done", toolCalls: [] }]) });
			await session.send("go");
			const started = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "session.started")!;
			expect(started.data.sandbox).toEqual({ available: false, reason: "WARDEN_SANDBOX_PROVIDER=none", profile: "workspace-write" });
		} finally {
			await runtime.close();
		}
	});

	it("set to a value that names no provider, refuses to open the session in one line", async () => {
		const { runtime, workspace } = await openWith("firejail");
		try {
			await expect(runtime.openSession({ workspace, model: new RecordingModel([]) })).rejects.toThrow(/^WARDEN_SANDBOX_PROVIDER must be one of auto, bwrap, landlock, none, got "firejail"$/);
		} finally {
			await runtime.close();
		}
	});
});
