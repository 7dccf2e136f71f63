import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFakeAnthropic } from "../../src/models/test-support/anthropic-fake-server.js";
import { expectValidTrace, makeFixture, parseEvents, runCli, terminalOf } from "./cli-harness.js";

describe("the Anthropic provider through the CLI", () => {
	it("retries a 429, streams a tool_use the host decides and executes, then the answer", async () => {
		const input = JSON.stringify({ path: "hello.txt", content: "hi from claude\n" });
		const server = await startFakeAnthropic([
			{ error: { status: 429, type: "rate_limit_error", message: "Number of requests has exceeded your rate limit", headers: { "retry-after": "0" } } },
			{ text: "I'll write it.", tool_uses: [{ id: "toolu_01", name: "write_file", input }], usage: { input_tokens: 40, output_tokens: 12, cache_read_input_tokens: 900 } },
			{ text: "Wrote hello.txt.", usage: { input_tokens: 60, output_tokens: 5, cache_read_input_tokens: 900 } },
		]);
		try {
			const fx = makeFixture();
			const r = await runCli(["run", "write hello", "--model", "anthropic:claude-test", "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"], {
				env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-e2e" },
			});
			expect(r.code, r.stderr).toBe(0);
			const events = parseEvents(r.stdout);
			expectValidTrace(events);
			expect(readFileSync(join(fx.workspace, "hello.txt"), "utf8")).toBe("hi from claude\n");
			expect(terminalOf(events, "call_1_1_1")).toBe("tool.completed");
			const retried = events.filter((e) => e.kind === "model.retried");
			expect(retried.map((e) => e.payload)).toEqual([{ step: 1, attempt: 1, max_attempts: 4, reason: "HTTP 429 rate limited", delay_ms: 0, retry_after_ms: 0 }]);
			const usage = events.flatMap((e) => (e.kind === "model.responded" ? [e.payload.usage] : []));
			expect(usage).toEqual([
				{ prompt_tokens: 940, completion_tokens: 12, cached_tokens: 900 },
				{ prompt_tokens: 960, completion_tokens: 5, cached_tokens: 900 },
			]);
			const done = events.find((e) => e.kind === "turn.completed");
			expect(done?.kind === "turn.completed" && done.payload.text).toBe("Wrote hello.txt.");
			// The budget is charged the whole prompt, the cached part included.
			expect(done?.kind === "turn.completed" && done.payload.budget).toMatchObject({ prompt_tokens: { used: 1900 }, completion_tokens: { used: 17 }, model_calls: { used: 2 } });
			// The answer went back as a tool_result for Anthropic's own id.
			const third = server.requests[2]?.body as { messages: { role: string; content: { type: string; tool_use_id?: string }[] }[] };
			const results = third.messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result");
			expect(results.map((b) => b.tool_use_id)).toEqual(["toolu_01"]);
			// The session replays offline, cache tokens and all.
			const file = join(fx.dir, "claude.replay.jsonl");
			const exported = await runCli(["replay", "export", events[0]!.session, file, "--state-dir", fx.stateDir]);
			expect(exported.code, exported.stderr).toBe(0);
			const replayed = await runCli(["replay", file, "--json"]);
			expect(replayed.code, replayed.stderr).toBe(0);
			expect(JSON.parse(replayed.stdout)).toMatchObject({ match: true, mismatches: [] });
		} finally {
			await server.close();
		}
	});

	it("--model <profile> uses the profile's endpoint and key variable", async () => {
		const server = await startFakeAnthropic([{ text: "hello from the profile" }]);
		try {
			const fx = makeFixture();
			const config = join(fx.dir, "config.yaml");
			writeFileSync(config, `models:\n  claude:\n    provider: anthropic\n    model: claude-profiled\n    base_url: ${server.url}\n    api_key_env: TEAM_KEY\n    context_window: 200000\n`);
			const r = await runCli(["run", "hi", "--config", config, "--model", "claude", "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"], {
				env: { TEAM_KEY: "sk-team", ANTHROPIC_API_KEY: "" },
			});
			expect(r.code, r.stderr).toBe(0);
			const events = parseEvents(r.stdout);
			const started = events.find((e) => e.kind === "session.started");
			expect(started?.kind === "session.started" && started.payload.model).toBe("anthropic:claude-profiled");
			expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-team");
			expect(server.requests[0]?.body.model).toBe("claude-profiled");
			const unknown = await runCli(["run", "hi", "--config", config, "--model", "cluade", "--workspace", fx.workspace, "--state-dir", fx.stateDir]);
			expect(unknown.code).toBe(2);
			expect(unknown.stderr).toMatch(/^warden: unknown model spec "cluade" \(no profile "cluade" in the config; profiles: claude\)[^\n]*\n$/);
		} finally {
			await server.close();
		}
	});
});
