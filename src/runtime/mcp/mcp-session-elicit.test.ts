import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING_SERVER, nodeServer } from "../../providers/mcp/test-support/mcp-servers.js";
import type { McpElicitation } from "../../providers/mcp/mcp-types.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { callsStep, RecordingModel } from "../test-support/recording-model.js";
import { elicitByQuestions } from "./elicit-questions.js";
import { approveMcpTools } from "./mcp-approvals.js";
import type { McpServerConfig } from "./mcp-server-config.js";

let t: TestRuntime | undefined;
afterEach(async () => {
	if (t) await closeTestRuntime(t);
	t = undefined;
});

const TOOL = "trigger-elicitation-request";

/** server-everything lists its elicitation tool only to a client that offers elicitation: approval must see it as a session does. */
async function setup() {
	t = await openTestRuntime("warden-mcp-elicit-");
	const workspace = realpathSync(t.workspace);
	const everything: McpServerConfig = { name: "everything", transport: nodeServer(EVERYTHING_SERVER, ["stdio"], workspace), sandbox: false, source: "test" };
	const pins = await approveMcpTools({ store: t.runtime.store, workspace, home: homedir(), servers: [everything], server: "everything", tools: [TOOL], by: "test" });
	expect(pins.map((p) => p.tool)).toEqual([TOOL]);
	return { runtime: t.runtime, workspace, everything };
}

const calling = () => new RecordingModel([callsStep({ name: `mcp__everything__${TOOL}`, arguments: {} }), { text: "done", toolCalls: [] }]);

describe("MCP elicitation in a session", () => {
	it("with nobody to ask (automation), the server's request is declined and recorded as not asked", async () => {
		const { runtime, workspace, everything } = await setup();
		const model = calling();
		const session = await runtime.openSession({ workspace, model, mcpServers: [everything], rules: { allow: ["mcp__everything__*"] } });
		await session.send("go");
		expect(JSON.stringify(model.requests[1]!.at(-1))).toMatch(/declin/i);
		const record = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "mcp.elicitation")!;
		expect(record.data).toMatchObject({ server: "everything", asked: false, action: "decline" });
		await session.end();
	});

	it("with a host to ask, the request goes through human.ask and the answer reaches the server; the record names the fields, not their values", async () => {
		const { runtime, workspace, everything } = await setup();
		const asked: McpElicitation[] = [];
		const model = calling();
		const session = await runtime.openSession({
			workspace,
			model,
			mcpServers: [everything],
			rules: { allow: ["mcp__everything__*"] },
			elicit: async (request) => {
				asked.push(request);
				return { action: "accept", content: { name: "Ada Lovelace", check: true } };
			},
		});
		await session.send("go");
		expect(asked).toHaveLength(1);
		expect(asked[0]!.server).toBe("everything");
		expect(Object.keys(asked[0]!.requestedSchema.properties as object)).toContain("name");
		expect(JSON.stringify(model.requests[1]!.at(-1))).toContain("Ada Lovelace");
		const audit = await runtime.listAudit({ session: session.id });
		const record = audit.find((r) => r.kind === "mcp.elicitation")!;
		expect(record.data).toMatchObject({ asked: true, action: "accept", fields: ["name", "check"] });
		expect(JSON.stringify(record.data)).not.toContain("Ada Lovelace");
		await session.end();
	});

	it("asked as questions (the terminal's way), the person's typed answers reach the server as typed values", async () => {
		const { runtime, workspace, everything } = await setup();
		const asked: string[] = [];
		const typed = ["yes", "Grace Hopper", "no"];
		const model = calling();
		const session = await runtime.openSession({
			workspace,
			model,
			mcpServers: [everything],
			rules: { allow: ["mcp__everything__*"] },
			elicit: elicitByQuestions(async (question) => {
				asked.push(question);
				// Past the scripted answers, an empty line keeps each default or leaves the field out.
				return typed.shift() ?? "";
			}),
		});
		await session.send("go");
		expect(asked[0]).toMatch(/^MCP server everything asks for input: Please provide inputs for the following fields: — it asks for: name \(required\), check/);
		const result = JSON.stringify(model.requests[1]!.at(-1));
		expect(result).toContain("Grace Hopper");
		expect(result).toContain("Agreed to terms: false");
		expect(result).toContain("Favorite Integer: 42");
		const record = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "mcp.elicitation")!;
		expect(record.data).toMatchObject({ asked: true, action: "accept" });
		expect(JSON.stringify(record.data)).not.toContain("Grace Hopper");
		await session.end();
	});

	it("a host-denied ceiling (approval: deny) declines without asking", async () => {
		const { runtime, workspace, everything } = await setup();
		let asked = 0;
		const session = await runtime.openSession({
			workspace,
			model: calling(),
			mcpServers: [everything],
			rules: { allow: ["mcp__everything__*"] },
			ceiling: { approval: "deny" },
			elicit: async () => {
				asked++;
				return { action: "accept", content: {} };
			},
		});
		await session.send("go");
		expect(asked).toBe(0);
		expect((await runtime.listAudit({ session: session.id })).find((r) => r.kind === "mcp.elicitation")!.data).toMatchObject({ asked: false, action: "decline" });
		await session.end();
	});
});
