import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../src/kernel/evidence/audit-types.js";
import { expandRefs } from "../../src/runtime/context/context-manifest.js";
import { ManifestReader } from "../../src/runtime/context/context-manifest-delta.js";
import { expectValidTrace, makeFixture, parseEvents, runCli } from "./cli-harness.js";

/** Twelve notes of ~2 KB: one read per step fills a 4 000-token window more than twice over. */
const NOTES = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`notes/n${i}.txt`, `note ${i}: ${"lorem ipsum dolor ".repeat(110)}\n`]));

interface AuditLine {
	seq: number;
	kind: string;
	turn: number;
	data: Record<string, unknown>;
}

describe("compaction (end to end, real CLI)", () => {
	it("a scripted session crosses the compaction threshold twice, finishes, and every model call's manifest accounts for every message", async () => {
		// The project is not in trusted_projects: its AGENTS.md is untrusted data, and so is the context that holds it.
		const fx = makeFixture({ ...NOTES, "AGENTS.md": "Answer in one line.\n" });
		const plan = fx.planPath("plan.yaml");
		const steps = [...Object.keys(NOTES).map((path) => ({ tool_calls: [{ name: "read_file", arguments: { path } }] })), { text: "all notes read" }];
		writeFileSync(plan, stringify({ context_window: 4000, steps }));
		const run = await runCli(["run", "read every note", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"], { timeoutMs: 60_000 });
		expect(run.code, run.stderr).toBe(0);
		const events = parseEvents(run.stdout);
		expectValidTrace(events);
		const session = events[0]!.session;
		const done = events.filter((e) => e.kind === "compaction.completed");
		expect(done.length).toBeGreaterThanOrEqual(2);
		expect(events.at(-2)).toMatchObject({ kind: "turn.completed", payload: { status: "completed", text: "all notes read" } });
		for (const e of events) if (e.kind === "model.responded") expect(e.payload.context_window).toBe(4000);

		const listed = await runCli(["audit", "list", "--json", "--session", session, "--state-dir", fx.stateDir]);
		expect(listed.code, listed.stderr).toBe(0);
		const audit = listed.stdout.trim().split("\n").map((l) => JSON.parse(l) as AuditLine);
		const manifests = audit.filter((r) => r.kind === "context.manifest" && r.data.purpose === "turn");
		expect(manifests).toHaveLength(steps.length);
		// Messages recorded before each call: the system prompt, AGENTS.md, the task, then two per step.
		for (const [i, m] of manifests.entries()) {
			const recorded = 3 + 2 * i;
			// A step's record may hold only what changed since the step before: read it whole, as explain does.
			const whole = new ManifestReader(audit as unknown as AuditRecord[]).read(m as unknown as AuditRecord);
			expect(whole?.digest_ok).toBe(true);
			const items = whole!.items as { ref: string; disposition: string; role?: string; why: string; covers?: string }[];
			const verbatim = items.filter((x) => x.disposition === "verbatim" && /^m\d+$/.test(x.ref)).map((x) => Number(x.ref.slice(1)));
			const covered = items.filter((x) => x.disposition === "summary").flatMap((x) => expandRefs(x.covers ?? ""));
			expect([...verbatim, ...covered].sort((a, b) => a - b), `manifest of step ${i + 1}`).toEqual(Array.from({ length: recorded }, (_, n) => n + 1));
			expect(items.slice(0, 2).map((x) => [x.ref, x.disposition])).toEqual([
				["m1", "verbatim"],
				["m2", "verbatim"],
			]);
			expect(items.find((x) => x.ref === "m2")?.why).toContain("project instructions");
			expect(items.find((x) => x.ref === "m3")).toMatchObject({ disposition: "verbatim", why: expect.stringContaining("current task") });
			expect(m.data.tokens as number).toBeLessThanOrEqual(m.data.limit as number);
		}
		// Each step's llm.complete names its manifest's digest.
		const llm = audit.filter((r) => r.kind === "llm.complete");
		const turnCalls = llm.filter((r) => r.data.purpose !== "compaction");
		expect(turnCalls.map((r) => r.data.manifest_digest)).toEqual(manifests.map((m) => m.data.digest));
		expect(llm.filter((r) => r.data.purpose === "compaction")).toHaveLength(done.length);

		// explain shows the whole manifest of a model call …
		const last = `model_1_${steps.length}`;
		const text = await runCli(["explain", last, "--state-dir", fx.stateDir]);
		expect(text.code, text.stderr).toBe(0);
		expect(text.stdout).toContain(`model call ${last} · session ${session} · turn 1 step ${steps.length}`);
		expect(text.stdout).toMatch(/context \d+ tokens \(estimate\) of a 4000-token window, compaction limit 3200 · manifest \[audit #\d+\] sha256 [0-9a-f]{16}… verified/);
		expect(text.stdout).toMatch(/summary \d+ · user · internal\/untrusted · \d+ tok · covers m4-m\d+ \(\d+\) — compaction \d+'s summary/);
		expect(text.stdout).toMatch(/summarised \(\d+\), from the compactions' records/);
		expect(text.stdout).toMatch(/m4 · assistant · internal\/untrusted · into summary 1 → summary \d+.* · calls call_1_1_1 \[audit #\d+\]/);
		expect(text.stdout.trimEnd().split("\n").at(-1)).toBe("evidence complete");
		const json = JSON.parse((await runCli(["explain", last, "--json", "--state-dir", fx.stateDir])).stdout);
		expect(json).toMatchObject({ kind: "model_call", purpose: "turn", complete: true, manifest: { digest_ok: true } });
		// … and of a compaction's summarising call, by its id or its record's seq.
		const compaction = await runCli(["explain", "compaction_1", "--state-dir", fx.stateDir]);
		expect(compaction.code, compaction.stderr).toBe(0);
		expect(compaction.stdout).toContain("compaction 1's summarising call");
		expect(compaction.stdout).toContain("instruction · user");
		const bySeq = JSON.parse((await runCli(["explain", `#${turnCalls[0]!.seq}`, "--json", "--state-dir", fx.stateDir])).stdout);
		expect(bySeq).toMatchObject({ model_call: "model_1_1", complete: true });
		// A summarised tool call is still explained in full, with the context its proposing call had.
		const call = await runCli(["explain", "call_1_1_1", "--state-dir", fx.stateDir]);
		expect(call.code, call.stderr).toBe(0);
		expect(call.stdout).toMatch(/context \d+\/4000 tokens: 3 verbatim, 0 summary, 0 summarised, 0 omitted · manifest \[audit #\d+\] \(warden explain model_1_1\)/);
		expect(call.stdout.trimEnd().split("\n").at(-1)).toBe("evidence complete");
		// The late call, proposed after two compactions, too.
		const late = await runCli(["explain", `call_1_${steps.length - 1}_1`, "--state-dir", fx.stateDir]);
		expect(late.stdout).toMatch(/\d+ summary, \d+ summarised/);
		expect(late.stdout.trimEnd().split("\n").at(-1)).toBe("evidence complete");
		expect((await runCli(["audit", "verify", "--state-dir", fx.stateDir])).code).toBe(0);
	});

	it("a bad context setting in config is one line, exit 2, before anything runs", async () => {
		const fx = makeFixture({ ".warden/config.yaml": "context:\n  compact_at: 2\n" });
		const plan = fx.planPath("plan.yaml");
		writeFileSync(plan, stringify({ steps: [{ text: "hi" }] }));
		const run = await runCli(["run", "hi", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir]);
		expect(run.code).toBe(2);
		expect(run.stderr.trim().split("\n")).toHaveLength(1);
		expect(run.stderr).toContain("context.compact_at");
	});
});
