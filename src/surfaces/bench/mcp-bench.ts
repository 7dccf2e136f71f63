/**
 * What governance costs an MCP round trip: one `echo` call to a stdio server through a Warden
 * session (model step, normalization, schema validation, permission decision, mcp.call admitted
 * by capability, flow and budget, a protected operation, events and durable audit records, the
 * result message) against the same call through the bare SDK client, in the same run, on the same
 * server script. Server start-up is not timed in either: a session connects once, as a client does.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ScriptedModel } from "../../models/scripted.js";
import { approveMcpTools } from "../../runtime/mcp/mcp-approvals.js";
import type { McpServerConfig } from "../../runtime/mcp/mcp-server-config.js";
import { Runtime } from "../../runtime/runtime.js";
import { BenchError } from "./bench-error.js";
import type { McpRoundTripReport } from "./bench-types.js";
import { callTiming } from "./call-timing.js";

export interface McpBenchOptions {
	/** Calls per round (one session turn, or one connected client). */
	calls: number;
	rounds: number;
	warmupRounds: number;
	tempDir: string;
	onProgress: (line: string) => void;
}

const SERVER = fileURLToPath(new URL("../../../eval/mcp/hostile-server.mjs", import.meta.url));
const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
/** The goal: governed ≤ 1.2 × bare + 1 ms per call. */
const GOAL_RATIO = 1.2;
const GOAL_SLACK_US = 1000;

function server(workspace: string): McpServerConfig {
	return { name: "bench", transport: { type: "stdio", command: process.execPath, args: [SERVER], env: ENV, cwd: workspace }, sandbox: false, source: "bench" };
}

async function bareRound(calls: number, workspace: string): Promise<number> {
	const client = new Client({ name: "bench", version: "1" });
	await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], env: ENV, cwd: workspace, stderr: "pipe" }));
	try {
		const started = performance.now();
		for (let i = 0; i < calls; i++) {
			const result = await client.callTool({ name: "echo", arguments: { text: `call ${i}` } });
			if (result.isError) throw new BenchError(`bare MCP call ${i} failed`);
		}
		return ((performance.now() - started) * 1000) / calls;
	} finally {
		await client.close();
	}
}

async function governedRound(runtime: Runtime, calls: number, workspace: string): Promise<number> {
	const steps: unknown[] = [];
	for (let i = 0; i < calls; i++) steps.push({ tool_calls: [{ name: "mcp__bench__echo", arguments: { text: `call ${i}` } }] });
	steps.push({ text: "done" });
	const session = await runtime.openSession({
		workspace,
		model: ScriptedModel.fromPlan({ steps }, "scripted:bench-mcp"),
		mode: "workspace-write",
		rules: { allow: ["mcp__bench__echo"] },
		maxSteps: calls + 1,
		mcpServers: [server(workspace)],
	});
	try {
		const started = performance.now();
		const result = await session.send("echo");
		const elapsed = performance.now() - started;
		if (result.status !== "completed" || result.toolCalls.completed !== calls) throw new BenchError(`governed MCP turn did not complete all ${calls} calls: ${result.status}, ${JSON.stringify(result.toolCalls)}`);
		return (elapsed * 1000) / calls;
	} finally {
		await session.end();
	}
}

export async function benchMcpRoundTrip(options: McpBenchOptions): Promise<McpRoundTripReport> {
	const { calls, rounds, warmupRounds, onProgress } = options;
	const base = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-mcp-")));
	const workspace = join(base, "workspace");
	mkdirSync(workspace);
	const runtime = await Runtime.open({ stateDir: join(base, "state") });
	try {
		await approveMcpTools({ store: runtime.store, workspace, home: homedir(), servers: [server(workspace)], server: "bench", tools: ["echo"], by: "bench" });
		onProgress(`mcp: ${warmupRounds} warm-up and ${rounds} measured rounds of ${calls} echo calls, bare SDK client and through Warden, interleaved`);
		const bare: number[] = [];
		const governed: number[] = [];
		for (let r = 0; r < warmupRounds + rounds; r++) {
			const b = await bareRound(calls, workspace);
			const g = await governedRound(runtime, calls, workspace);
			if (r >= warmupRounds) {
				bare.push(b);
				governed.push(g);
			}
		}
		const bareTiming = callTiming(bare);
		const governedTiming = callTiming(governed);
		const overheadUs = governedTiming.medianUs - bareTiming.medianUs;
		return {
			calls,
			rounds,
			warmupRounds,
			bare: bareTiming,
			governed: governedTiming,
			ratio: governedTiming.medianUs / bareTiming.medianUs,
			overheadUs,
			goalMet: governedTiming.medianUs <= GOAL_RATIO * bareTiming.medianUs + GOAL_SLACK_US,
		};
	} finally {
		await runtime.close();
		rmSync(base, { recursive: true, force: true });
	}
}
