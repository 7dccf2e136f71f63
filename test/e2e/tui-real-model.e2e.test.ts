/**
 * A whole task in the interactive terminal with a model over the network: the chat on an
 * OpenAI-compatible endpoint (a real HTTP server on 127.0.0.1 speaking the streamed
 * chat-completions protocol, the boundary we do not own), its write asked and allowed by key.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAI } from "../../src/models/test-support/openai-fake-server.js";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { expectValidTrace, makeFixture, runCli } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";

const open: { screen?: PtyScreen; server?: FakeOpenAIServer }[] = [];
afterEach(async () => {
	for (const { screen, server } of open.splice(0)) {
		screen?.kill();
		await server?.close();
	}
});

describe("warden (the interactive terminal) with a networked model", () => {
	it("streams the model's text, asks before its write, y allows it: the file changes and the model's answer follows", async () => {
		const fixture = makeFixture({ "greet.txt": "hello\n" });
		const server = await startFakeOpenAI([
			{ text: "I'll make the greeting friendlier.", tool_calls: [{ name: "write_file", arguments: JSON.stringify({ path: "greet.txt", content: "hello, world\n" }) }] },
			{ text: "The greeting now says hello to the world." },
		]);
		const screen = new PtyScreen(["--model", "openai:test-model", "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, "--ask", "write_file(greet.txt)"], {
			env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-not-a-secret" },
		});
		open.push({ screen, server });
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("make the greeting friendlier\r");
		const asked = await screen.waitFor("[y] allow once");
		expect(asked).toContain("I'll make the greeting friendlier.");
		expect(asked).toContain("Allow write_file on greet.txt?");
		expect(asked).toContain("+hello, world");
		screen.write("y");
		await screen.waitFor("The greeting now says hello to the world.");
		expect(readFileSync(`${fixture.workspace}/greet.txt`, "utf8")).toBe("hello, world\n");
		screen.write("\u0004");
		expect(await screen.exited).toBe(0);
		const m = /session ([0-9a-f-]{36}) · audit: \d+ records, hash chain valid/.exec(screen.text().replace(/\n/g, ""));
		expect(m, screen.text()).not.toBeNull();

		// The model saw the tool's result of the allowed write, and the evidence is whole.
		expect(server.requests).toHaveLength(2);
		expect(JSON.stringify(server.requests[1]?.body)).toContain("greet.txt");
		const shown = await runCli(["sessions", "show", m![1]!, "--json", "--state-dir", fixture.stateDir]);
		const recorded = (JSON.parse(shown.stdout) as { events: AnyWardenEvent[] }).events;
		expect(recorded.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: true, response: "allow_once" });
		expectValidTrace(recorded);
	});
});
