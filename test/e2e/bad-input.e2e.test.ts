import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../../src/models/test-support/openai-fake-server.js";
import { expectValidTrace, makeFixture, parseEvents, runCli, runPlan, terminalOf, writePlan } from "./cli-harness.js";

const ONE_LINE_ERROR = /^warden: [^\n]+\n$/;

describe("bad input gets a one-line error and loses nothing", () => {
	it("malformed model output, unknown tools and invalid arguments become tool.invalid, never executions", async () => {
		const fx = makeFixture();
		const run = await runPlan(fx, [
			{
				tool_calls: [
					{ name: "write_file", arguments: '{"path": "x.txt", "content": ' },
					{ name: "launch_missiles", arguments: { target: "x" } },
					{ name: "write_file", arguments: { path: "x.txt" } },
					{ name: "shell", arguments: { command: 42 } },
				],
			},
			{ text: "ok" },
		]);
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		for (const id of ["call_1_1_1", "call_1_1_2", "call_1_1_3", "call_1_1_4"]) expect(terminalOf(run.events, id)).toBe("tool.invalid");
		expect(run.events.some((e) => e.kind === "permission.decided")).toBe(false);
		expect(readdirSync(fx.workspace)).toEqual([]);
		expect((await runCli(["audit", "verify", "--state-dir", fx.stateDir])).code).toBe(0);
	});

	it("a missing workspace, a missing model, a bad mode and a bad rule each get one line", async () => {
		const fx = makeFixture();
		const plan = writePlan(fx, [{ text: "hi" }]);
		const cases: string[][] = [
			["run", "t", "--model", `scripted:${plan}`, "--workspace", join(fx.dir, "nope"), "--state-dir", fx.stateDir],
			["run", "t", "--workspace", fx.workspace, "--state-dir", fx.stateDir],
			["run", "t", "--model", `scripted:${join(fx.dir, "missing.yaml")}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir],
			["run", "t", "--model", `scripted:${plan}`, "--mode", "yolo", "--workspace", fx.workspace, "--state-dir", fx.stateDir],
			["run", "t", "--model", `scripted:${plan}`, "--allow", "shell(git push", "--workspace", fx.workspace, "--state-dir", fx.stateDir],
			["run", "t", "--model", `bogus:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir],
		];
		for (const args of cases) {
			const r = await runCli(args);
			expect(r.code, r.stderr).toBe(2);
			expect(r.stderr).toMatch(ONE_LINE_ERROR);
			expect(r.stderr).not.toMatch(/\n\s+at /);
		}
		const noModel = await runCli(cases[1]!);
		expect(noModel.stderr).toContain("no model configured");
		expect((await runCli(["audit", "verify", "--state-dir", fx.stateDir])).code).toBe(0);
	});

	it("an unreachable model endpoint ends the turn as model_error with one line", async () => {
		const fx = makeFixture();
		const r = await runCli(["run", "t", "--model", "openai:test", "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"], {
			env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "" },
		});
		expect(r.code).toBe(1);
		expect(r.stderr).toMatch(ONE_LINE_ERROR);
		expect(r.stderr).toContain("cannot reach model endpoint");
		const events = parseEvents(r.stdout);
		expectValidTrace(events);
		const done = events.find((e) => e.kind === "turn.completed");
		expect(done?.kind === "turn.completed" && done.payload.status).toBe("model_error");
	});

	it("a model that stops answering ends the turn at --model-timeout, never a hang", async () => {
		const server = await startFakeOpenAI([{ text: "thinking", stall: true }]);
		try {
			const fx = makeFixture();
			const r = await runCli(
				["run", "t", "--model", "openai:slow", "--model-timeout", "1", "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"],
				{ env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "" } },
			);
			expect(r.code).toBe(1);
			expect(r.stderr).toMatch(ONE_LINE_ERROR);
			expect(r.stderr).toContain("did not answer within 1 s");
			expectValidTrace(parseEvents(r.stdout));
		} finally {
			await server.close();
		}
	});

	it("a corrupt or unusable state dir is refused with one line", async () => {
		const fx = makeFixture();
		const plan = writePlan(fx, [{ text: "hi" }]);
		mkdirSync(join(fx.dir, "corrupt"));
		writeFileSync(join(fx.dir, "corrupt", "warden.db"), "this is not a database at all, just text".repeat(200));
		writeFileSync(join(fx.dir, "a-file"), "x");
		for (const stateDir of [join(fx.dir, "corrupt"), join(fx.dir, "a-file", "state")]) {
			const r = await runCli(["run", "t", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", stateDir]);
			expect(r.code).toBe(2);
			expect(r.stderr).toMatch(ONE_LINE_ERROR);
			expect(r.stderr).toContain(stateDir);
		}
	});
});

describe("the OpenAI-compatible provider through the CLI", () => {
	it("streams tool calls from a real HTTP server and governs them like any other", async () => {
		const server = await startFakeOpenAI([
			{ tool_calls: [{ name: "write_file", arguments: JSON.stringify({ path: "hello.txt", content: "hi\n" }) }] },
			{ tool_calls: [{ name: "shell", arguments: JSON.stringify({ command: "rm -rf ~" }) }] },
			{ text: "wrote hello.txt" },
		]);
		try {
			const fx = makeFixture();
			const r = await runCli(["run", "say hi", "--model", "openai:fake-model", "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"], {
				env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-abcdefghijklmnopqrstuvwxyz012345" },
			});
			expect(r.code, r.stderr).toBe(0);
			const events = parseEvents(r.stdout);
			expectValidTrace(events);
			expect(readFileSync(join(fx.workspace, "hello.txt"), "utf8")).toBe("hi\n");
			expect(terminalOf(events, "call_1_2_1")).toBe("tool.denied");
			const last = events.find((e) => e.kind === "turn.completed");
			expect(last?.kind === "turn.completed" && last.payload.text).toBe("wrote hello.txt");
			const third = server.requests[2]?.body as { messages: { role: string; content: string }[] };
			const toolResult = third.messages.filter((m) => m.role === "tool").at(-1);
			expect(toolResult?.content).toMatch(/Permission denied/);
			expect(toolResult?.content).toMatch(/Do not try to reach the same effect another way/);
		} finally {
			await server.close();
		}
	});
});

describe("audit tampering is detected by warden audit verify", () => {
	async function recordedRun() {
		const fx = makeFixture({ "a.txt": "a\n" });
		const run = await runPlan(fx, [
			{ tool_calls: [{ name: "read_file", arguments: { path: "a.txt" } }, { name: "write_file", arguments: { path: "b.txt", content: "b" } }] },
			{ text: "ok" },
		]);
		expect(run.code).toBe(0);
		const db = new Database(join(fx.stateDir, "warden.db"));
		const count = (db.prepare("SELECT count(*) AS n FROM audit").get() as { n: number }).n;
		expect(count).toBeGreaterThan(5);
		// An attacker with the file can drop the append-only triggers; the chain must still tell.
		for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[]) {
			db.exec(`DROP TRIGGER "${name}"`);
		}
		return { fx, db };
	}

	it("refuses UPDATE and DELETE while the triggers stand", async () => {
		const fx = makeFixture();
		await runPlan(fx, [{ text: "ok" }]);
		const db = new Database(join(fx.stateDir, "warden.db"));
		expect(() => db.prepare("UPDATE audit SET line = '1' WHERE seq = 1").run()).toThrow(/append-only/);
		// Every column but the line is generated from it: none can be written on its own.
		expect(() => db.prepare("UPDATE audit SET data = '{}' WHERE seq = 1").run()).toThrow(/generated column/);
		expect(() => db.prepare("DELETE FROM audit WHERE seq = 1").run()).toThrow(/append-only/);
		db.close();
	});

	it.each([
		["edited", (db: Database.Database) => db.prepare(`UPDATE audit SET line = replace(line, '"data":{', '"data":{"tool":"nothing",') WHERE seq = 4`).run(), 4],
		["deleted", (db: Database.Database) => db.prepare("DELETE FROM audit WHERE seq = 4").run(), 4],
		[
			"reordered",
			(db: Database.Database) => {
				db.prepare("UPDATE audit SET seq = -1 WHERE seq = 4").run();
				db.prepare("UPDATE audit SET seq = 4 WHERE seq = 5").run();
				db.prepare("UPDATE audit SET seq = 5 WHERE seq = -1").run();
			},
			4,
		],
	] as const)("a record %s is named", async (_what, tamper, firstBad) => {
		const { fx, db } = await recordedRun();
		tamper(db);
		db.close();
		const r = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain(`BROKEN at record ${firstBad}`);
	});
});
