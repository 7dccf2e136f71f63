/** Drives the real `warden` CLI (bin/warden.js over the built dist) in child processes. */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import { stringify } from "yaml";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { checkTraceInvariant } from "../../src/kernel/evidence/trace-invariant.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(root, "bin", "warden.js");
/** An empty config home: no test reads the developer's own ~/.config/warden/config.yaml. */
export const CONFIG_HOME = mkdtempSync(join(tmpdir(), "warden-e2e-config-"));
/** An empty state home: a command run without --state-dir never touches the developer's own ~/.local/state/warden. */
export const STATE_HOME = mkdtempSync(join(tmpdir(), "warden-e2e-state-"));
/** An empty model cache: a developer's downloaded default model does not change what a test without a model sees. */
export const CACHE_HOME = mkdtempSync(join(tmpdir(), "warden-e2e-cache-"));

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, ...args], {
			env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME, WARDEN_HF_ENDPOINT: "", ...opts.env },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code: code ?? -1, stdout, stderr });
		});
	});
}

export interface Fixture {
	dir: string;
	workspace: string;
	stateDir: string;
	planPath(name: string): string;
}

/** A temp dir with `workspace/` (holding `files`), `state/`, and room for plans and outside files. */
export function makeFixture(files: Record<string, string> = {}): Fixture {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-e2e-")));
	const workspace = join(dir, "workspace");
	mkdirSync(workspace);
	for (const [path, content] of Object.entries(files)) {
		mkdirSync(dirname(join(workspace, path)), { recursive: true });
		writeFileSync(join(workspace, path), content);
	}
	return { dir, workspace, stateDir: join(dir, "state"), planPath: (name) => join(dir, name) };
}

export function link(target: string, path: string): void {
	symlinkSync(target, path);
}

export type PlanStep = { text?: string; tool_calls?: { name: string; arguments?: unknown }[] };

export function writePlan(fixture: Fixture, steps: PlanStep[], name = "plan.yaml"): string {
	const path = fixture.planPath(name);
	writeFileSync(path, stringify({ steps }));
	return path;
}

/** `warden run --json` in the fixture; returns the parsed events too. */
export async function runPlan(
	fixture: Fixture,
	steps: PlanStep[],
	extra: string[] = [],
	opts: { env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult & { events: AnyWardenEvent[] }> {
	const plan = writePlan(fixture, steps);
	const result = await runCli(
		["run", "e2e task", "--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, "--json", ...extra],
		opts,
	);
	return { ...result, events: parseEvents(result.stdout) };
}

const schema = JSON.parse(readFileSync(join(root, "schemas", "events.v1.json"), "utf8")) as object;
const validateEvent = new Ajv2020({ strict: true, allErrors: true }).compile(schema);

/** Parses `--json` output: every stdout line must be one schema-valid event. */
export function parseEvents(stdout: string): AnyWardenEvent[] {
	return stdout
		.split("\n")
		.filter((line) => line !== "")
		.map((line) => {
			const event = JSON.parse(line) as AnyWardenEvent;
			if (!validateEvent(event)) throw new Error(`event does not match schemas/events.v1.json: ${line}\n${JSON.stringify(validateEvent.errors)}`);
			return event;
		});
}

/** Every recorded run is checked against the trace invariant. */
export function expectValidTrace(events: AnyWardenEvent[]): void {
	const report = checkTraceInvariant(events);
	if (!report.ok) throw new Error(`trace invariant violated:\n${report.violations.join("\n")}`);
}

export function decisionsOf(events: AnyWardenEvent[]): Record<string, string> {
	const out: Record<string, string> = {};
	for (const e of events) if (e.kind === "permission.decided") out[e.payload.call_id] = e.payload.decision;
	return out;
}

export function terminalOf(events: AnyWardenEvent[], callId: string): string | undefined {
	const terminal = ["tool.completed", "tool.failed", "tool.cancelled", "tool.denied", "tool.invalid"];
	return events.find((e) => terminal.includes(e.kind) && (e.payload as { call_id?: string }).call_id === callId)?.kind;
}
