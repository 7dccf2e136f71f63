import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeSyntheticGguf } from "../../src/models/llama/synthetic-gguf.js";
import { TEST_LLAMA_ENV } from "../../src/models/test-support/llama-test-runtime.js";
import { decisionsOf, expectValidTrace, makeFixture, parseEvents, runCli, terminalOf } from "./cli-harness.js";

// A real GGUF run in the CLI's own process: the prompt (system, protocol and ten tools, one token
// per byte) is ~7.5k tokens, so the model's window is 16k (compaction keeps room for the answer).
const TIMEOUT = 180_000;

describe("warden run --model llama:<file.gguf> (end to end, real CLI, real inference)", () => {
	it(
		"the model's grammar-constrained call is decided, executed and recorded, then the model answers",
		async () => {
			const fx = makeFixture();
			mkdirSync(join(fx.workspace, "é"));
			writeFileSync(join(fx.workspace, "é", "inside.txt"), "x\n");
			const model = join(fx.dir, "call-then-answer.gguf");
			await writeSyntheticGguf(model, { design: "call-then-answer", contextLength: 16_384 });

			const run = await runCli(["run", "--json", "--model", `llama:${model}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--max-steps", "3", "hi"], {
				env: TEST_LLAMA_ENV,
				timeoutMs: TIMEOUT,
			});
			expect(run.code, run.stderr).toBe(0);
			const events = parseEvents(run.stdout);
			expectValidTrace(events);
			const proposed = events.filter((e) => e.kind === "tool.proposed");
			expect(proposed.map((e) => e.kind === "tool.proposed" && [e.payload.tool, e.payload.arguments])).toEqual([["list_dir", { path: "é" }]]);
			expect(decisionsOf(events)).toEqual({ call_1_1_1: "allow" });
			expect(terminalOf(events, "call_1_1_1")).toBe("tool.completed");
			const responded = events.filter((e) => e.kind === "model.responded");
			expect(responded.map((e) => e.kind === "model.responded" && e.payload.tool_calls)).toEqual([1, 0]);
			for (const r of responded) {
				if (r.kind !== "model.responded") continue;
				expect(r.payload.usage?.prompt_tokens).toBeGreaterThan(0);
				expect(r.payload.usage?.completion_tokens).toBeGreaterThan(0);
			}
			// The second request reuses the first one's context: most of its prompt is cached.
			const second = responded[1];
			expect(second?.kind === "model.responded" && (second.payload.usage?.cached_tokens ?? 0) > 6000).toBe(true);
			const completed = events.find((e) => e.kind === "turn.completed");
			expect(completed?.kind === "turn.completed" && completed.payload.status).toBe("completed");

			// The call's evidence: the admitted read and the listing it returned, in the audit chain.
			const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
			expect(verify.code, verify.stderr).toBe(0);
			const audit = await runCli(["audit", "list", "--json", "--state-dir", fx.stateDir]);
			const records = audit.stdout.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; call_id?: string; data: Record<string, unknown> });
			expect(records.some((r) => r.kind === "permission.decided" && r.call_id === "call_1_1_1")).toBe(true);
			const llm = records.filter((r) => r.kind === "llm.complete");
			expect(llm).toHaveLength(2);
			const explain = await runCli(["explain", "call_1_1_1", "--state-dir", fx.stateDir]);
			expect(explain.code, explain.stderr).toBe(0);
			expect(explain.stdout).toContain("list_dir");
		},
		TIMEOUT,
	);

	it(
		"a GGUF that would abort llama.cpp ends the run with a one-line error, not a crash",
		async () => {
			const fx = makeFixture();
			const model = join(fx.dir, "broken.gguf");
			await writeSyntheticGguf(model, { omitKey: "llama.embedding_length" });
			const run = await runCli(["run", "--model", `llama:${model}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "hi"], { env: TEST_LLAMA_ENV, timeoutMs: TIMEOUT });
			expect(run.code).not.toBe(0);
			expect(run.stderr.trim().split("\n")).toHaveLength(1);
			expect(run.stderr).toContain(`llama model ${model} failed to load: `);
		},
		TIMEOUT,
	);
});
