/**
 * The crash matrix: the real CLI killed by SIGKILL at each durability barrier, then reopened twice.
 * Every crash point runs with the write-first plan; the three operation barriers whose outcome
 * differs for a command run again with the shell first, so an unknown command effect is exercised.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { OperationRow } from "../../src/kernel/operations/operation-types.js";
import { type CrashCaseResult, runCrashCase, standardCrashPlan } from "../../src/surfaces/eval/crash-harness.js";
import { CRASH_POINTS, type CrashPoint } from "../../src/store/fault-injection.js";

async function crashAt(point: CrashPoint, order: "write-first" | "shell-first" = "write-first"): Promise<CrashCaseResult & { workspace: string }> {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-crash-")));
	const workspace = join(dir, "workspace");
	mkdirSync(workspace);
	const result = await runCrashCase({ point, workspace, stateDir: join(dir, "state"), scratch: join(dir, "scratch"), steps: standardCrashPlan(order) });
	return { ...result, workspace };
}

function states(ops: OperationRow[]): string[] {
	return ops.map((op) => `${op.kind}:${op.state}`);
}

function expectAllInvariants(r: CrashCaseResult): void {
	expect(r.failures).toEqual([]);
	expect(r.invariants.map((i) => i.name)).toEqual([
		"crashed",
		"at most one dispatch per intent",
		"no operation lost or re-settled",
		"no lost or duplicated audit record",
		"unknown effects surfaced",
		"second reopen changes nothing",
	]);
	expect(r.run.signal).toBe("SIGKILL");
	expect(r.fingerprints[0]).toBe(r.fingerprints[1]);
	// Whatever the barrier, the run's session was cut off and is now interrupted.
	expect(r.recovery.interrupted).toHaveLength(1);
	expect(r.afterRecovery.sessions.map((s) => s.status)).toEqual(["interrupted"]);
}

/** What each barrier leaves, with the write-first plan: operations at the crash → after recovery. */
const WRITE_FIRST: Record<CrashPoint, { atCrash: string[]; after: string[]; file: string | null }> = {
	"operation.prepared": { atCrash: ["fs.write:prepared"], after: ["fs.write:abandoned"], file: null },
	"operation.dispatched": { atCrash: ["fs.write:dispatched"], after: ["fs.write:failed"], file: null },
	"operation.performed": { atCrash: ["fs.write:dispatched"], after: ["fs.write:committed"], file: "first line\n" },
	"operation.settled": { atCrash: ["fs.write:committed"], after: ["fs.write:committed"], file: "first line\n" },
	"store.audit-append": { atCrash: [], after: [], file: null },
	"store.event-append": { atCrash: [], after: [], file: null },
	"turn.model-answered": { atCrash: [], after: [], file: null },
	"turn.tool-result": { atCrash: ["fs.write:committed"], after: ["fs.write:committed"], file: "first line\n" },
	"turn.completed": {
		atCrash: ["fs.write:committed", "fs.write:committed", "shell.exec:committed"],
		after: ["fs.write:committed", "fs.write:committed", "shell.exec:committed"],
		file: "edited line\n",
	},
};

function fileText(path: string): string | null {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return null;
	}
}

describe("crash matrix (SIGKILL at each barrier, write first)", () => {
	it("covers every crash point", () => {
		expect(Object.keys(WRITE_FIRST).sort()).toEqual([...CRASH_POINTS].sort());
	});

	for (const point of CRASH_POINTS) {
		it.concurrent(`recovers from a crash at ${point}`, async () => {
			const r = await crashAt(point);
			expectAllInvariants(r);
			const want = WRITE_FIRST[point];
			expect(states(r.atCrash.operations)).toEqual(want.atCrash);
			expect(states(r.afterRecovery.operations)).toEqual(want.after);
			expect(fileText(join(r.workspace, "notes.txt"))).toBe(want.file);
			if (point === "operation.performed") {
				// The write happened and its record died with the process: recovery proves it by content hash and records it.
				expect(r.recovery.operations[0]).toMatchObject({ state: "committed", by: expect.stringContaining("content hash") });
				const effect = r.afterRecovery.audit.find((a) => a.kind === "effect");
				expect(effect?.data).toMatchObject({ effect: "fs.write", reconciled_by: expect.stringContaining("content hash") });
			}
		}, 60_000);
	}
});

describe("crash matrix (shell first: a command's effect cannot be observed afterwards)", () => {
	it.concurrent("abandons a command that was only prepared, and it never runs", async () => {
		const r = await crashAt("operation.prepared", "shell-first");
		expectAllInvariants(r);
		expect(states(r.afterRecovery.operations)).toEqual(["shell.exec:abandoned"]);
		expect(r.afterSecondReopen.counterLines).toBe(0);
	}, 60_000);

	it.concurrent("leaves a dispatched command unknown and never runs it again", async () => {
		const r = await crashAt("operation.dispatched", "shell-first");
		expectAllInvariants(r);
		expect(states(r.afterRecovery.operations)).toEqual(["shell.exec:unknown"]);
		expect(r.recovery.operations).toEqual([expect.objectContaining({ kind: "shell.exec", state: "unknown" })]);
		expect(r.afterSecondReopen.counterLines).toBe(0);
	}, 60_000);

	it.concurrent("leaves a command that ran unknown, counted once, named by recovery.completed", async () => {
		const r = await crashAt("operation.performed", "shell-first");
		expectAllInvariants(r);
		expect(states(r.afterRecovery.operations)).toEqual(["shell.exec:unknown"]);
		expect([r.atCrash.counterLines, r.afterRecovery.counterLines, r.afterSecondReopen.counterLines]).toEqual([1, 1, 1]);
		const completed = r.afterRecovery.audit.filter((a) => a.kind === "recovery.completed");
		expect(completed).toHaveLength(1);
		expect(completed[0]!.data).toMatchObject({ unknown: 1, operations: [expect.objectContaining({ id: r.afterRecovery.operations[0]!.id, state: "unknown" })] });
	}, 60_000);
});

describe("crash matrix (one-use authority: a counted grant's use is reserved in the intent)", () => {
	const once = [{ id: "once", resource: "fs:**", rights: ["write" as const], uses: 1 }];
	const writeStep = (path: string) => ({ tool_calls: [{ name: "write_file", arguments: { path, content: `${path}\n` } }] });
	// Whatever became of the intent (abandoned, failed, committed), its use stays spent after the reopen.
	const cases: [CrashPoint, string][] = [
		["operation.prepared", "fs.write:abandoned"],
		["operation.dispatched", "fs.write:failed"],
		["operation.performed", "fs.write:committed"],
	];
	for (const [point, after] of cases) {
		it.concurrent(`a grant with uses: 1, crash at ${point}, reopen and try again: refused`, async () => {
			const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-crash-once-")));
			const workspace = join(dir, "workspace");
			mkdirSync(workspace);
			const r = await runCrashCase({
				point,
				workspace,
				stateDir: join(dir, "state"),
				scratch: join(dir, "scratch"),
				grants: once,
				steps: [writeStep("notes.txt"), { text: "done" }],
				retry: [writeStep("again.txt"), { text: "done" }],
			});
			expect(r.failures).toEqual([]);
			expect(r.invariants.map((i) => i.name)).toContain("no one-use authority handed out twice");
			expect(states(r.afterRecovery.operations)).toEqual([after]);
			expect(r.afterRecovery.operations[0]!.consumed).toEqual({ grants: [{ holder: `session:${r.afterRecovery.sessions[0]!.id}`, grant: "once" }] });
			// The resumed session asks again and is refused at the primitive: the grant's one use is gone.
			const retried = r.retry!;
			expect(retried.run.code).toBe(0);
			const failed = retried.run.stdout
				.split("\n")
				.filter((l) => l !== "")
				.map((l) => JSON.parse(l) as { kind: string; payload: { error?: string } })
				.find((e) => e.kind === "tool.failed");
			expect(failed?.payload.error).toContain("grant once is used up (1 use)");
			expect(fileText(join(workspace, "again.txt"))).toBeNull();
			expect(states(retried.after.operations)).toEqual([after]);
			const resumed = retried.after.audit.find((a) => a.kind === "session.resumed");
			expect(resumed?.data.authority_consumed).toEqual({ grant_uses: { once: 1 }, leases: 0 });
		}, 60_000);
	}
});
