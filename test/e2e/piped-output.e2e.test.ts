/**
 * Output through a real pipe: a reader slower than Warden still gets every byte and the right exit
 * status, and a reader that goes away ends the command quietly.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { BIN, CONFIG_HOME, makeFixture, parseEvents, writePlan } from "./cli-harness.js";

const MIB = 1024 * 1024;
const CALLS = 200;
const notes = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`notes-${i}.md`, "a line of notes\n".repeat(40)]));

interface Piped {
	code: number | null;
	stdout: string;
	stderr: string;
}

function spawnCli(args: string[]) {
	return spawn(process.execPath, [BIN, ...args], {
		env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME },
		stdio: ["ignore", "pipe", "pipe"],
	});
}

function collect(stream: NodeJS.ReadableStream): Promise<string> {
	let text = "";
	stream.on("data", (d: Buffer) => {
		text += d.toString();
	});
	return new Promise((resolve) => stream.on("end", () => resolve(text)));
}

/** Reads the CLI's stdout a small chunk at a time, yielding to the event loop between chunks, so Warden is done writing long before the reader is. */
async function slowlyRead(args: string[]): Promise<Piped> {
	const child = spawnCli(args);
	const stderr = collect(child.stderr);
	const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
	const chunks: Buffer[] = [];
	const reader = new Writable({
		highWaterMark: 1024,
		write(chunk: Buffer, _enc, done) {
			chunks.push(chunk);
			setTimeout(done, 10);
		},
	});
	await pipeline(child.stdout, reader);
	return { code: await exited, stdout: Buffer.concat(chunks).toString(), stderr: await stderr };
}

/** Reads the first chunk of stdout, then closes the pipe: the next write Warden makes fails with EPIPE. */
async function readerGoesAway(args: string[]): Promise<Piped & { first: string }> {
	const child = spawnCli(args);
	const stderr = collect(child.stderr);
	const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
	const first = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString())));
	child.stdout.destroy();
	return { code: await exited, stdout: "", stderr: await stderr, first };
}

/** A task folder whose one task carries a description over 1 MiB, so the eval report is larger still. */
function bigTasks(dir: string): string {
	const tasks = join(dir, "tasks");
	mkdirSync(join(tasks, "big"), { recursive: true });
	const description = "piped-output ".repeat(Math.ceil((1.2 * MIB) / 13));
	writeFileSync(join(tasks, "big", "big-report.yaml"), `category: big\ndescription: "${description}"\nmode: workspace-write\nplan:\n  - text: done\n`);
	return tasks;
}

/** A scripted run whose one step makes enough calls for its --json events to fill the pipe many times over. */
function manyCallsPlan(fx: ReturnType<typeof makeFixture>): string {
	const calls = Array.from({ length: CALLS }, (_, i) => ({ name: "read_file", arguments: { path: `notes-${i % 10}.md` } }));
	return writePlan(fx, [{ tool_calls: calls }, { text: "done" }]);
}

describe("output through a pipe (real CLI)", () => {
	it("delivers an eval report over 1 MiB whole to a slow reader, with exit status 0", async () => {
		const fx = makeFixture();
		const result = await slowlyRead(["eval", "safety", "--json", "--runner", "full", "--tasks", bigTasks(fx.dir)]);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(MIB);
		const report = JSON.parse(result.stdout) as { tasks: { id: string; results: { full: { status: string } } }[] };
		expect(report.tasks.map((t) => [t.id, t.results.full.status])).toEqual([["big-report", "passed"]]);
	});

	it("delivers every event of `run --json` to a slow reader, through the final one", async () => {
		const fx = makeFixture(notes);
		const plan = manyCallsPlan(fx);
		const result = await slowlyRead(["run", "read the notes", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"]);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(128 * 1024);
		const events = parseEvents(result.stdout);
		expect(events.filter((e) => e.kind === "tool.completed")).toHaveLength(CALLS);
		expect(events.at(-1)?.kind).toBe("session.ended");
	});

	it("ends quietly when the reader goes away: no stack trace, a failing status", async () => {
		const fx = makeFixture();
		const result = await readerGoesAway(["eval", "safety", "--json", "--runner", "full", "--tasks", bigTasks(fx.dir)]);
		expect(result.first.startsWith("{")).toBe(true);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(1);
	});

	it("stops a run whose reader went away, quietly, and leaves its evidence sound", async () => {
		const fx = makeFixture(notes);
		const plan = manyCallsPlan(fx);
		const result = await readerGoesAway(["run", "read the notes", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"]);
		expect(result.first).toContain('"kind":"session.started"');
		expect(result.stderr).toBe("");
		expect(result.code).toBe(1);
		const verify = spawnCli(["audit", "verify", "--state-dir", fx.stateDir]);
		const verified = collect(verify.stdout);
		expect(await new Promise((resolve) => verify.on("exit", resolve))).toBe(0);
		expect(await verified).toContain("valid");
	});
});
