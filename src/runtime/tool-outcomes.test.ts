import { describe, expect, it } from "vitest";
import { taskCeiling } from "../kernel/authority/task-ceiling.js";
import { label } from "../kernel/flow/label.js";
import { createRedactor } from "../kernel/flow/redaction.js";
import { SessionFlow } from "../kernel/flow/session-flow.js";
import { createSinkRegistry, defaultSinkRules } from "../kernel/flow/sink-registry.js";
import type { MemoryBinding } from "../kernel/kernel-memory.js";
import { clip, outcomeRow, type ToolOutcome } from "./tool-outcomes.js";

/** What clip must give: the whole text flattened, then cut. */
function reference(text: string, max: number): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

describe("clip", () => {
	it.each([
		["short text", "a  b\n\tc ", 300],
		["a long output, one word after another", "word ".repeat(2000), 300],
		["a long run of whitespace past the first look", `${"a".repeat(10)}${" ".repeat(5000)}${"b".repeat(400)}`, 300],
		["whitespace only", " \n\t ".repeat(3000), 300],
		["ends exactly at the limit", `${"x".repeat(300)}${" ".repeat(3000)}`, 300],
		["one past the limit after a long gap", `${"x".repeat(300)}${"\n".repeat(3000)}y`, 300],
		["a surrogate pair at the cut", "😀".repeat(1000), 301],
		["no-break and other Unicode spaces", "\u00a0\u2028a\u3000\ufeff".repeat(900), 120],
	])("%s: the same as flattening the whole text", (_name, text, max) => {
		expect(clip(text, max)).toBe(reference(text, max));
	});

	it("agrees with flattening the whole text on mixed texts of every length", () => {
		let seed = 11;
		const next = (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed % n;
		};
		const pieces = ["a", "bc", " ", "  ", "\n", "\t\t", "\u00a0", "word", " ".repeat(300)];
		for (let i = 0; i < 500; i++) {
			let text = "";
			for (let n = next(600); n > 0; n--) text += pieces[next(pieces.length)];
			const max = 1 + next(320);
			expect(clip(text, max)).toBe(reference(text, max));
		}
	});
});

/** A session's flow plane whose redactor knows nothing yet: what a record must hold up against on its own. */
function freshFlow(): SessionFlow {
	return new SessionFlow({
		session: "s1",
		workspace: "/ws",
		registry: createSinkRegistry(defaultSinkRules({ model: { sink: "llm:local", local: true } })),
		ceiling: taskCeiling({}),
		redactor: createRedactor({ env: {} }),
		record: async () => {},
	});
}

const binding = { session: "s1", project: "/ws" } as Pick<MemoryBinding, "session" | "project"> as MemoryBinding;
const at = new Date("2026-01-01T00:00:00Z");
const HISTORY = label("secret", "trusted", { kind: "file", ref: "HEAD:.env" });

function outcome(output: string, read = HISTORY, args: Record<string, unknown> = { command: "git show HEAD:.env" }): ToolOutcome {
	return { callId: "call_1_1_1", tool: "shell", args, outcome: "completed", output, durationMs: 3, label: read, read };
}

describe("outcomeRow", () => {
	it("a secret read's record keeps none of its values, though the redactor never learned them", () => {
		const row = outcomeRow(binding, freshFlow(), outcome("LAUNCH_CODE=7Q-ALPHA-991\nthe vault phrase is correct horse battery staple\n"), at);
		expect(row.content).toBe("LAUNCH_CODE=[REDACTED] [REDACTED]");
		expect(row.title).toBe("shell completed: git show HEAD:.env");
		expect(row.label).toMatchObject({ sensitivity: "secret", sources: expect.arrayContaining([{ kind: "file", ref: "HEAD:.env" }]) });
	});

	it("the same output read from an internal source is kept as it is", () => {
		const row = outcomeRow(binding, freshFlow(), outcome("build ok in 3s\n", label("internal", "trusted", { kind: "file", ref: "build.log" })), at);
		expect(row.content).toBe("build ok in 3s");
		expect(row.label.sensitivity).toBe("internal");
	});

	it("a known secret that straddles the summary's cut is masked whole, not cut first and missed", () => {
		const flow = freshFlow();
		const secret = "zq81-straddle-value-4471";
		flow.options.redactor.addSecret(secret);
		const internal = label("internal", "trusted", { kind: "file", ref: "log.txt" });
		for (let lead = 280; lead <= 300; lead++) {
			const row = outcomeRow(binding, flow, outcome(`${"a".repeat(lead)} ${secret} tail`, internal, { command: `echo ${"b".repeat(lead - 180)} ${secret}` }), at);
			expect(row.content).not.toContain(secret.slice(0, 4));
			expect(row.title).not.toContain(secret.slice(0, 4));
			// Any part of it before the cut makes the record secret; wholly past the cut, it is not in the record at all.
			expect(row.label.sensitivity).toBe(lead < 299 ? "secret" : "internal");
		}
		// A large output whose summary starts after a long run of whitespace: the masked start reaches that far.
		const big = `${" \n".repeat(12_000)}${"x".repeat(290)} ${secret} ${"y".repeat(100_000)}`;
		const row = outcomeRow(binding, flow, outcome(big, internal), at);
		expect(row.content).toBe(`${"x".repeat(290)} [REDACTED…`);
		expect(row.label.sensitivity).toBe("secret");
	});
});
