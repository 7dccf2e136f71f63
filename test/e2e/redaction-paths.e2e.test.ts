/**
 * Planted secrets against every output path of a run whose model is a remote provider: the request
 * bodies that provider receives, the console feed (human and --json), the evidence commands, and
 * the raw database bytes. The provider is the fake OpenAI server on loopback, made remote by a
 * host sink rule, as a user would do for a proxy they do not trust.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { type FakeOpenAIResponse, type FakeOpenAIServer, startFakeOpenAI } from "../../src/models/test-support/openai-fake-server.js";
import { type CliResult, expectValidTrace, type Fixture, makeFixture, parseEvents, runCli } from "./cli-harness.js";

type Canaries = Record<string, string>;

/** Fresh per run, so a hit can only come from this run's data. */
function plantCanaries(): Canaries {
	const alnum = (n: number) =>
		randomBytes(n)
			.toString("base64")
			.replace(/[^A-Za-z0-9]/g, "")
			.slice(0, n);
	return {
		stripe: `sk_live_${alnum(28)}`,
		// No known secret shape: only the exact value the runtime read can catch it.
		dbPassword: `velvet-otter-${randomBytes(4).toString("hex")}-marmalade`,
		pemBody: randomBytes(48).toString("base64"),
		projectKey: `sk-proj-${alnum(40)}`,
		apiKey: `sk-canary-${alnum(36)}`,
	};
}

function plantWorkspace(c: Canaries): Fixture {
	return makeFixture({
		".env": `STRIPE_KEY=${c.stripe}\nDB_PASSWORD=${c.dbPassword}\n`,
		"deploy.pem": `-----BEGIN RSA PRIVATE KEY-----\n${c.pemBody}\n-----END RSA PRIVATE KEY-----\n`,
		"config.js": `const client = { apiKey: "${c.projectKey}" };\nexport const region = "eu-west-1-lighthouse";\nexport default client;\n`,
	});
}

const MODEL = "redaction-canary";
/** The runtime names calls by turn, step and position in its evidence, whatever ids the provider gave. */
const CALL = { env: "call_1_1_1", pem: "call_1_2_1", config: "call_1_3_1", cat: "call_1_4_1" };
const SECRET_READS = [CALL.env, CALL.pem, CALL.cat];
/** The ids the provider issued: its requests carry them back, paired with each tool result. */
const PROVIDER_ID = { [CALL.env]: "prov_env", [CALL.pem]: "prov_pem", [CALL.config]: "prov_config", [CALL.cat]: "prov_cat" } as Record<string, string>;
const SINK = `llm:openai/${MODEL}`;

/** Reads each planted file, then `cat .env` through the shell, then answers with text that repeats two secrets. */
function script(c: Canaries): FakeOpenAIResponse[] {
	const call = (name: string, args: object, warden: string) => ({ name, arguments: JSON.stringify(args), id: PROVIDER_ID[warden]! });
	return [
		{ tool_calls: [call("read_file", { path: ".env" }, CALL.env)] },
		{ tool_calls: [call("read_file", { path: "deploy.pem" }, CALL.pem)] },
		{ tool_calls: [call("read_file", { path: "config.js" }, CALL.config)] },
		{ tool_calls: [call("shell", { command: "cat .env" }, CALL.cat)] },
		// A model may echo a secret it got elsewhere; the runtime read these values, so they are masked wherever they reappear.
		{ text: `Done. The password is ${c.dbPassword} and the key is ${c.stripe}.` },
	];
}

async function runWith(
	fx: Fixture,
	c: Canaries,
	configPath: string,
	extra: string[],
): Promise<{ result: CliResult; server: FakeOpenAIServer }> {
	const server = await startFakeOpenAI(script(c));
	try {
		const result = await runCli(
			[
				"run",
				"summarise the deployment setup",
				"--model",
				`openai:${MODEL}`,
				"--workspace",
				fx.workspace,
				"--state-dir",
				fx.stateDir,
				"--config",
				configPath,
				"--mode",
				"full-access",
				"--on-ask",
				"allow",
				...extra,
			],
			{ env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: c.apiKey } },
		);
		return { result, server };
	} finally {
		await server.close();
	}
}

function expectNoCanary(where: string, text: string, c: Canaries): void {
	for (const [name, value] of Object.entries(c)) {
		expect(text.includes(value), `${name} canary found in ${where}`).toBe(false);
	}
}

/** The text of the message that carried a tool call's result to the model, from the last request. */
function toolMessage(server: FakeOpenAIServer, callId: string): string {
	const last = server.requests.at(-1)?.body as { messages?: { role: string; tool_call_id?: string; content?: unknown }[] } | undefined;
	const message = last?.messages?.find((m) => m.role === "tool" && m.tool_call_id === PROVIDER_ID[callId]);
	if (message === undefined) throw new Error(`no tool message for ${callId} in the last request`);
	return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

function flowDecisions(events: AnyWardenEvent[]) {
	return events.flatMap((e) => (e.kind === "flow.decided" ? [e.payload] : []));
}

describe("planted secrets reach no output path when the model is a remote provider", () => {
	it("withholds secret files from the remote model, masks inline keys, and keeps every canary out of every output", async () => {
		const c = plantCanaries();
		const fx = plantWorkspace(c);
		const configPath = join(fx.dir, "config.yaml");
		writeFileSync(configPath, `flow:\n  sinks:\n    - sink: "llm:openai/*"\n      trust: untrusted\n      max: internal\n`);

		const human = await runWith(fx, c, configPath, []);
		expect(human.result.code, human.result.stderr).toBe(0);
		const json = await runWith(fx, c, configPath, ["--json"]);
		expect(json.result.code, json.result.stderr).toBe(0);
		const events = parseEvents(json.result.stdout);
		expectValidTrace(events);

		for (const [label, run] of [
			["human run", human],
			["--json run", json],
		] as const) {
			expect(run.server.requests.length, `${label}: one request per scripted answer`).toBe(5);
			// Tool results as the remote model saw them.
			for (const id of SECRET_READS) {
				const sent = toolMessage(run.server, id);
				expect(sent, `${label} ${id}`).toMatch(/^\[warden\] The result of call \S+ was withheld from /);
				expect(sent, `${label} ${id}`).toContain(SINK);
				expect(sent.split("\n"), `${label} ${id}: a one-line notice`).toHaveLength(1);
			}
			const config = toolMessage(run.server, CALL.config);
			expect(config, `${label}: config.js is sent, its key masked`).toContain("[REDACTED]");
			expect(config).toContain('export const region = "eu-west-1-lighthouse"');
			expect(config).toContain("export default client");
			for (const [i, request] of run.server.requests.entries()) {
				// The key was in play: it authenticated every request, and must surface nowhere else.
				expect(request.headers.authorization).toBe(`Bearer ${c.apiKey}`);
				expectNoCanary(`${label} request ${i + 1} body`, JSON.stringify(request.body), c);
			}
		}

		// The echoed secrets did reach the console feed, masked: the absence checks below are not vacuous.
		expect(human.result.stdout).toContain("Done. The password is [REDACTED] and the key is [REDACTED].");
		const completed = events.find((e) => e.kind === "turn.completed");
		expect(completed?.kind === "turn.completed" && completed.payload.text).toBe("Done. The password is [REDACTED] and the key is [REDACTED].");
		expectNoCanary("human stdout", human.result.stdout, c);
		expectNoCanary("human stderr", human.result.stderr, c);
		expectNoCanary("--json stdout", json.result.stdout, c);
		expectNoCanary("--json stderr", json.result.stderr, c);

		// The flow evidence: each secret read was withheld from the named model sink.
		const withheld = flowDecisions(events).filter((d) => d.decision === "withheld");
		for (const id of SECRET_READS) {
			const decision = withheld.find((d) => d.call_id === id);
			expect(decision, `flow.decided withheld for ${id}`).toBeDefined();
			expect(decision?.sink).toBe(SINK);
			expect(decision?.operation).toBe("llm.complete");
			expect(decision?.label.sensitivity).toBe("secret");
			expect(decision?.clearance.max).toBe("internal");
		}
		expect(withheld.some((d) => d.call_id === CALL.config), "the masked config.js is not withheld").toBe(false);

		const sessions = await runCli(["sessions", "list", "--json", "--state-dir", fx.stateDir]);
		expect(sessions.code, sessions.stderr).toBe(0);
		const ids = sessions.stdout
			.trim()
			.split("\n")
			.map((line) => (JSON.parse(line) as { id: string }).id);
		expect(ids).toHaveLength(2);
		for (const id of ids) {
			for (const args of [["sessions", "show", id], ["sessions", "show", id, "--json"]]) {
				const shown = await runCli([...args, "--state-dir", fx.stateDir]);
				expect(shown.code, shown.stderr).toBe(0);
				expectNoCanary(args.join(" "), shown.stdout + shown.stderr, c);
			}
		}
		for (const args of [["audit", "list"], ["audit", "list", "--json"]]) {
			const audit = await runCli([...args, "--state-dir", fx.stateDir]);
			expect(audit.code, audit.stderr).toBe(0);
			expect(audit.stdout).toContain("flow.decided");
			expectNoCanary(args.join(" "), audit.stdout + audit.stderr, c);
		}
		expect((await runCli(["audit", "verify", "--state-dir", fx.stateDir])).code).toBe(0);

		// The database and its write-ahead log as raw bytes, whatever the evidence commands choose to show.
		const stateFiles = readdirSync(fx.stateDir);
		expect(stateFiles.some((f) => f.endsWith(".db"))).toBe(true);
		for (const file of stateFiles) {
			expectNoCanary(`state file ${file}`, readFileSync(join(fx.stateDir, file)).toString("latin1"), c);
		}

		// Replay files: covered here when `warden replay export` lands (issue 6).
	});
});
