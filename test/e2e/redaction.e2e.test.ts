import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectValidTrace, makeFixture, runCli, runPlan } from "./cli-harness.js";

const FILE_KEY = "sk-proj-Q9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfEd";
const ENV_TOKEN = "tok-3f9a1c77e2b84d5a9e01";
const PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----";

describe("secrets are redacted before anything is persisted or emitted", () => {
	it("keeps planted secrets out of events, audit, messages and the database files", async () => {
		const fx = makeFixture({ ".env": `OPENAI_API_KEY=${FILE_KEY}\n`, "id_key": `${PEM}\n` });
		const run = await runPlan(
			fx,
			[
				{
					tool_calls: [
						{ name: "read_file", arguments: { path: ".env" } },
						{ name: "shell", arguments: { command: "cat id_key; echo Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456" } },
						{ name: "write_file", arguments: { path: "copy.txt", content: `key=${FILE_KEY} token ${ENV_TOKEN}` } },
					],
				},
				{ text: `I found ${FILE_KEY} and ${ENV_TOKEN}` },
			],
			["--mode", "full-access"],
			{ env: { DEPLOY_TOKEN: ENV_TOKEN } },
		);
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		const audit = await runCli(["audit", "list", "--json", "--state-dir", fx.stateDir]);
		const sessions = await runCli(["sessions", "list", "--json", "--state-dir", fx.stateDir]);
		const id = JSON.parse(sessions.stdout.trim().split("\n")[0]!).id as string;
		const shown = await runCli(["sessions", "show", id, "--json", "--state-dir", fx.stateDir]);
		const dbBytes = readdirSync(fx.stateDir)
			.map((f) => readFileSync(join(fx.stateDir, f)).toString("latin1"))
			.join("\n");
		for (const [where, text] of [
			["events", run.stdout],
			["audit", audit.stdout],
			["sessions show", shown.stdout],
			["database files", dbBytes],
		] as const) {
			expect(text, where).not.toContain(FILE_KEY);
			expect(text, where).not.toContain(ENV_TOKEN);
			expect(text, where).not.toContain("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ");
			expect(text, where).not.toContain("abcdefghijklmnopqrstuvwxyz123456");
		}
		expect(audit.stdout).toContain("[REDACTED]");
		// The effect itself still happened: redaction protects the evidence, not the workspace.
		expect(readFileSync(join(fx.workspace, "copy.txt"), "utf8")).toContain(FILE_KEY);
	});
});
