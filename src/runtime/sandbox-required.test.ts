/** `sandbox: "required"`: the host keeps shell commands in the sandbox even where the mode would not. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeSandbox } from "../providers/sandbox/sandbox-probe.js";
import type { Runtime } from "./runtime.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-sandbox-required-", { files: { "README.md": "# demo\n" } }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const sandboxed = (await probeSandbox()).available;

describe.skipIf(!sandboxed)("sandbox: required", () => {
	const writeOutside = (target: string) => callsStep({ name: "shell", arguments: { command: `echo escaped > ${target}; echo inside > inside.txt` } });

	it("confines full-access's shell to the workspace when the host requires it", async () => {
		const outside = join(root, "outside-required.txt");
		const session = await runtime.openSession({ workspace, model: new RecordingModel([writeOutside(outside), { text: "done", toolCalls: [] }]), mode: "full-access", sandbox: "required" });
		expect(await session.send("go")).toMatchObject({ status: "completed" });
		expect(existsSync(outside)).toBe(false);
		expect(existsSync(join(workspace, "inside.txt"))).toBe(true);
		const effect = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "effect" && r.data.effect === "shell.exec")!;
		expect(effect.data.sandbox).toMatchObject({ profile: "workspace-write" });
	});

	it("leaves full-access unconfined by default, as its mode says", async () => {
		const outside = join(root, "outside-default.txt");
		const session = await runtime.openSession({ workspace, model: new RecordingModel([writeOutside(outside), { text: "done", toolCalls: [] }]), mode: "full-access" });
		expect(await session.send("go")).toMatchObject({ status: "completed" });
		expect(existsSync(outside)).toBe(true);
	});

	it("refuses a sandbox setting it does not know, in one line", async () => {
		await expect(runtime.openSession({ workspace, model: new RecordingModel([]), sandbox: "maybe" as "required" })).rejects.toThrow(/^sandbox must be "mode" or "required", got "maybe"$/);
	});
});
