import { describe, expect, it } from "vitest";
import { taskCeiling } from "../authority/task-ceiling.js";
import type { FileLabelKey, FileLabelRow, LabelRow } from "../../store/store.js";
import { FlowDeniedError } from "./flow-errors.js";
import type { FlowDecisionRecord, ReleaseRequest, SinkRuleSpec } from "./flow-types.js";
import { type Label, label } from "./label.js";
import { createRedactor } from "./redaction.js";
import { type FileLabelStore, SessionFlow, type SessionFlowOptions, sha256Hex } from "./session-flow.js";
import { checkSinkRules, createSinkRegistry, defaultSinkRules } from "./sink-registry.js";

const LOOPBACK = "net:http://127.0.0.1:9";
const TRUSTED = "net:https://vault.internal:443";
const RELEASABLE = "net:https://api.example.com:443";
const STRICT = "net:https://strict.example:443";
const GITHUB_TOKEN = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`;

const hostRules: SinkRuleSpec[] = [
	{ sink: TRUSTED, trust: "trusted", max: "secret" },
	{ sink: RELEASABLE, trust: "trusted", max: "internal", release: "secret" },
	{ sink: STRICT, trust: "trusted", max: "secret", min_integrity: "trusted" },
	{ sink: "llm:released", trust: "trusted", max: "internal", release: "secret" },
];

class MemoryLabels implements FileLabelStore {
	readonly rows: FileLabelRow[] = [];
	async putFileLabel(row: FileLabelRow): Promise<void> {
		this.rows.push(row);
	}
	async getFileLabel(key: FileLabelKey): Promise<LabelRow | undefined> {
		return this.rows.find((r) => r.workspace === key.workspace && r.path === key.path && r.sha256 === key.sha256)?.label;
	}
}

interface Harness {
	flow: SessionFlow;
	recorded: FlowDecisionRecord[];
	asked: ReleaseRequest[];
	labels: MemoryLabels;
	redactor: ReturnType<typeof createRedactor>;
}

function harness(opts: { approve?: boolean | undefined; ceilingSinks?: string[]; initialContext?: Label; redact?: "always" | "untrusted" | "never" } = {}): Harness {
	const recorded: FlowDecisionRecord[] = [];
	const asked: ReleaseRequest[] = [];
	const labels = new MemoryLabels();
	const redactor = createRedactor({ env: {} });
	const rules = [...checkSinkRules(hostRules, "flow.sinks", "host"), ...defaultSinkRules({ model: { sink: "llm:remote", local: false } })];
	const options: SessionFlowOptions = {
		session: "s1",
		workspace: "/ws",
		registry: createSinkRegistry(rules),
		ceiling: taskCeiling(opts.ceilingSinks ? { sinks: opts.ceilingSinks } : {}),
		redactor,
		fileLabels: labels,
		record: async (d) => {
			recorded.push(d);
		},
		...(opts.approve !== undefined
			? {
					askRelease: async (request: ReleaseRequest) => {
						asked.push(request);
						return opts.approve === true;
					},
				}
			: {}),
		...(opts.initialContext ? { initialContext: opts.initialContext } : {}),
		...(opts.redact ? { redactModelContext: opts.redact } : {}),
	};
	return { flow: new SessionFlow(options), recorded, asked, labels, redactor };
}

const signal = new AbortController().signal;
const envSource = { kind: "file" as const, ref: ".env", sha256: "e".repeat(64) };
const secretEnv = label("secret", "trusted", envSource);

async function denial(p: Promise<unknown>): Promise<FlowDeniedError> {
	try {
		await p;
	} catch (err) {
		expect(err).toBeInstanceOf(FlowDeniedError);
		return err as FlowDeniedError;
	}
	throw new Error("expected a flow refusal");
}

describe("SessionFlow egress", () => {
	it("starts from the host's internal, trusted context", () => {
		const { flow } = harness();
		expect(flow.contextLabel).toMatchObject({ sensitivity: "internal", integrity: "trusted" });
		expect(flow.forCall("c1", signal).argumentsLabel).toEqual(flow.contextLabel);
	});

	it("refuses a POST to loopback once a secret is in the context, and records it", async () => {
		const { flow, recorded } = harness();
		flow.joinContext(secretEnv);
		const call = flow.forCall("c1", signal);
		const err = await denial(call.admitEgress({ operation: "net.fetch", sinks: [LOOPBACK], payload: "hello" }));
		expect(err.message).toBe(`flow refused: net.fetch to ${LOOPBACK}: secret data (from file .env, user host) is above what ${LOOPBACK} clears (untrusted, up to internal)`);
		expect(recorded).toHaveLength(1);
		expect(recorded[0]).toMatchObject({ call_id: "c1", decision: "deny", sink: LOOPBACK, payload_sha256: sha256Hex("hello") });
		expect(call.refusals).toEqual([err]);
	});

	it("arguments keep the context of the moment the call was proposed", async () => {
		const { flow } = harness();
		const call = flow.forCall("c1", signal);
		flow.joinContext(secretEnv);
		await expect(call.admitEgress({ operation: "net.fetch", sinks: [LOOPBACK], payload: "x" })).resolves.toHaveLength(1);
		await denial(flow.forCall("c2", signal).admitEgress({ operation: "net.fetch", sinks: [LOOPBACK], payload: "x" }));
	});

	it("allows a secret to a trusted sink that clears it, and records that non-trivial allow", async () => {
		const { flow, recorded } = harness();
		flow.joinContext(secretEnv);
		const records = await flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [TRUSTED], payload: "p" });
		expect(records).toHaveLength(1);
		expect(records[0]).toMatchObject({ decision: "allow", sink: TRUSTED });
		expect(recorded).toEqual(records);
	});

	it("returns but does not record a trivial allow", async () => {
		const { flow, recorded } = harness();
		const records = await flow.forCall("c1", signal).admitEgress({ operation: "fs.write", sinks: ["fs:notes.md"], payload: "p" });
		expect(records[0]).toMatchObject({ decision: "allow" });
		expect(recorded).toEqual([]);
	});

	it("sends under a release approved for exactly that payload, and asks again for the next send", async () => {
		const { flow, recorded, asked } = harness({ approve: true });
		flow.joinContext(secretEnv);
		const payload = JSON.stringify({ url: "https://api.example.com/x", body: "data" });
		const first = await flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [RELEASABLE], payload });
		expect(asked).toHaveLength(1);
		expect(asked[0]).toMatchObject({ session: "s1", call_id: "c1", operation: "net.fetch", sink: RELEASABLE, payload_sha256: sha256Hex(payload), preview: payload });
		expect(first[0]).toMatchObject({ decision: "release", release_id: asked[0]!.id });
		expect(recorded).toEqual(first);
		await flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [RELEASABLE], payload });
		expect(asked).toHaveLength(2);
		expect(asked[1]!.id).not.toBe(asked[0]!.id);
	});

	it("refuses when the host refuses the release, or there is no one to ask", async () => {
		const refused = harness({ approve: false });
		refused.flow.joinContext(secretEnv);
		const err = await denial(refused.flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [RELEASABLE], payload: "p" }));
		expect(err.why).toMatch(/needs an exact release and none was approved$/);
		expect(refused.asked).toHaveLength(1);
		expect(refused.recorded[0]).toMatchObject({ decision: "deny" });
		const nobody = harness();
		nobody.flow.joinContext(secretEnv);
		await denial(nobody.flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [RELEASABLE], payload: "p" }));
	});

	it("asks nothing when another recipient of the same operation is refused outright", async () => {
		const { flow, asked } = harness({ approve: true });
		flow.joinContext(secretEnv);
		const err = await denial(flow.forCall("c1", signal).admitEgress({ operation: "shell.exec", sinks: [RELEASABLE, LOOPBACK], payload: "p" }));
		expect(err.sink).toBe(LOOPBACK);
		expect(asked).toEqual([]);
	});

	it("keeps to the ceiling's sinks for the kinds it names", async () => {
		const { flow } = harness({ ceilingSinks: ["net:https://vault.internal:*"] });
		await expect(flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [TRUSTED], payload: "p" })).resolves.toHaveLength(1);
		const err = await denial(flow.forCall("c2", signal).admitEgress({ operation: "net.fetch", sinks: [LOOPBACK], payload: "p" }));
		expect(err.why).toMatch(/task ceiling's sinks do not include/);
		await expect(flow.forCall("c3", signal).admitEgress({ operation: "fs.write", sinks: ["fs:a.md"], payload: "p" })).resolves.toHaveLength(1);
	});

	it("refuses untrusted data to a sink that requires trusted integrity", async () => {
		const { flow } = harness({ approve: true });
		flow.joinContext(label("public", "untrusted", { kind: "url", ref: "https://x.example/" }));
		const err = await denial(flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [STRICT], payload: "p" }));
		expect(err.why).toMatch(/^untrusted data .* accepts trusted data only$/);
		await expect(flow.forCall("c2", signal).admitEgress({ operation: "net.fetch", sinks: [TRUSTED], payload: "p" })).resolves.toHaveLength(1);
	});

	it("finds a secret's shape in the payload of a clean context", async () => {
		const { flow, redactor } = harness();
		expect(redactor.redactText(GITHUB_TOKEN)).not.toBe(GITHUB_TOKEN);
		const err = await denial(flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [LOOPBACK], payload: `token=${GITHUB_TOKEN}` }));
		expect(err.label.sources).toContainEqual({ kind: "detected", ref: "net.fetch payload" });
	});

	it("masks and detects the values of a secret file a call observed", async () => {
		const { flow, redactor } = harness();
		const call = flow.forCall("c1", signal);
		call.observe(secretEnv, "DB_PASSWORD=correct-horse-battery\n");
		expect(call.resultLabel.sensitivity).toBe("secret");
		expect(redactor.redactText("pw is correct-horse-battery")).toBe("pw is [REDACTED]");
		await denial(flow.forCall("c2", signal).admitEgress({ operation: "net.fetch", sinks: [LOOPBACK], payload: "correct-horse-battery" }));
	});

	it("masks the exact values a reader names with a secret observation, and names back the ones it knows", () => {
		const { flow, redactor } = harness();
		const call = flow.forCall("c1", signal);
		const note = "the launch code is 7Q-ALPHA-991 and it rotates on fridays";
		// Not secret: values named with it are not secrets either.
		call.observe(label("internal", "trusted", { kind: "file", ref: "notes.md" }), note, ["7Q-ALPHA-991"]);
		expect(redactor.redactText("7Q-ALPHA-991")).toBe("7Q-ALPHA-991");
		call.observe(secretEnv, note, ["7Q-ALPHA-991"]);
		expect(redactor.redactText("post 7Q-ALPHA-991")).toBe("post [REDACTED]");
		expect(call.secretsIn(`code ${note}`)).toEqual([note, "7Q-ALPHA-991"]);
	});

	it("starts a child from its parent's context", async () => {
		const { flow } = harness({ initialContext: secretEnv });
		expect(flow.contextLabel.sensitivity).toBe("secret");
		await denial(flow.forCall("c1", signal).admitEgress({ operation: "net.fetch", sinks: [LOOPBACK], payload: "p" }));
	});
});

describe("SessionFlow file labels", () => {
	it("labels secret files by name and internal ones otherwise", async () => {
		const { flow } = harness();
		const call = flow.forCall("c1", signal);
		expect(await call.fileLabel(".env", "a".repeat(64))).toMatchObject({ sensitivity: "secret" });
		expect(await call.fileLabel("src/a.ts", "b".repeat(64))).toMatchObject({ sensitivity: "internal", integrity: "trusted" });
	});

	it("persists labels above internal and finds them on the same content", async () => {
		const { flow, labels } = harness();
		const call = flow.forCall("c1", signal);
		await call.labelWrite("plain.md", "1".repeat(64), label("internal", "trusted"));
		expect(labels.rows).toEqual([]);
		await call.labelWrite("dump.txt", "2".repeat(64), secretEnv);
		expect(labels.rows).toHaveLength(1);
		expect(labels.rows[0]).toMatchObject({ workspace: "/ws", path: "dump.txt", sha256: "2".repeat(64), session: "s1", label: secretEnv });
		await call.labelWrite("page.html", "3".repeat(64), label("public", "untrusted", { kind: "url", ref: "https://x/" }));
		expect(labels.rows).toHaveLength(2);
		// A later session, same store: the label is found by path and content.
		const later = harness();
		later.labels.rows.push(...labels.rows);
		expect(await later.flow.forCall("c9", signal).fileLabel("dump.txt", "2".repeat(64))).toMatchObject({ sensitivity: "secret" });
		expect(await later.flow.forCall("c9", signal).fileLabel("dump.txt", "4".repeat(64))).toMatchObject({ sensitivity: "internal" });
	});

	it("carries a label to a copy of the same content under another name, in the same session", async () => {
		const { flow } = harness();
		const call = flow.forCall("c1", signal);
		expect(await call.fileLabel(".env", "5".repeat(64))).toMatchObject({ sensitivity: "secret" });
		expect(await call.fileLabel("copy.txt", "5".repeat(64))).toMatchObject({ sensitivity: "secret" });
	});

	it("labels a path named without content by its name and what was written there", async () => {
		const { flow } = harness();
		const call = flow.forCall("c1", signal);
		expect(await call.pathLabel("config/.env")).toMatchObject({ sensitivity: "secret" });
		expect(await call.pathLabel("out.txt")).toMatchObject({ sensitivity: "internal" });
		await call.labelWrite("out.txt", "6".repeat(64), secretEnv);
		expect(await call.pathLabel("out.txt")).toMatchObject({ sensitivity: "secret" });
	});
});

describe("SessionFlow model context", () => {
	it("withholds a secret result from a remote model, with a notice, and keeps it out of the context", async () => {
		const { flow, recorded } = harness({ approve: true });
		const model = flow.model("llm:remote");
		expect(flow.model("llm:remote")).toBe(model);
		expect(model.clearance).toMatchObject({ trust: "untrusted", max: "internal" });
		const entered = await model.enter({ callId: "c1", content: "DB_PASSWORD=correct-horse-battery", label: secretEnv, signal });
		expect(entered.withheld).toBe(true);
		expect(entered.content).not.toContain("correct-horse-battery");
		expect(entered.content).toMatch(/^\[warden\] The result of call c1 was withheld from llm:remote: secret data \(from file \.env\).*Do not try/);
		expect(entered.content).not.toContain("\n");
		expect(entered.label.sensitivity).toBe("public");
		expect(recorded).toEqual([entered.record]);
		expect(entered.record).toMatchObject({ operation: "llm.complete", decision: "withheld", sink: "llm:remote" });
		expect(flow.contextLabel.sensitivity).toBe("internal");
	});

	it("redacts a secret shape before an untrusted model sees it, and lets the rest in", async () => {
		const { flow, recorded } = harness();
		const entered = await flow.model("llm:remote").enter({ callId: "c1", content: `found ${GITHUB_TOKEN} in logs`, label: label("internal", "trusted"), signal });
		expect(entered.withheld).toBe(false);
		expect(entered.content).toBe("found [REDACTED] in logs");
		expect(entered.label.sensitivity).toBe("internal");
		expect(recorded).toEqual([]);
	});

	it("withholds a detected secret when redaction is off", async () => {
		const { flow } = harness({ redact: "never" });
		const entered = await flow.model("llm:remote").enter({ callId: "c1", content: `found ${GITHUB_TOKEN}`, label: label("internal", "trusted"), signal });
		expect(entered.withheld).toBe(true);
		expect(entered.record?.label.sources).toContainEqual({ kind: "detected", ref: "result of c1" });
	});

	it("lets in a released result, which the next request spends once", async () => {
		const { flow, asked, recorded } = harness({ approve: true });
		const model = flow.model("llm:released");
		// This sink clears only internal, so a secret shape would be masked first: this text has none, only the file's label.
		const content = "row 7: correct-horse-battery";
		const entered = await model.enter({ callId: "c1", content, label: secretEnv, signal });
		expect(entered).toMatchObject({ content, withheld: false, record: { decision: "release", release_id: asked[0]!.id } });
		expect(asked[0]).toMatchObject({ operation: "llm.complete", sink: "llm:released", call_id: "c1", payload_sha256: sha256Hex(content) });
		expect(flow.contextLabel.sensitivity).toBe("secret");

		const clean = { content: "hi", label: label("internal", "trusted") };
		const messages = [clean, { content, label: entered.label }];
		const decision = await model.admitRequest(messages, 0);
		expect(decision).toMatchObject({ decision: "release", release_id: asked[0]!.id, sink: "llm:released" });
		expect(recorded.filter((r) => r.decision === "release")).toHaveLength(2);
		// Already sent: not new to the sink, so not checked again.
		await expect(model.admitRequest(messages, 2)).resolves.toMatchObject({ decision: "allow" });
		// A second copy of the same content is new: its release was spent.
		const err = await denial(model.admitRequest([...messages, { content, label: entered.label }], 2));
		expect(err.why).toMatch(/needs an exact release/);
		expect(recorded.at(-1)).toMatchObject({ decision: "deny" });
	});

	it("passes the sink's own reply back to it under a secret context, and nothing else", async () => {
		const { flow } = harness({ approve: true });
		const model = flow.model("llm:released");
		await model.enter({ callId: "c1", content: "row 7: correct-horse-battery", label: secretEnv, signal });
		await model.admitRequest([{ content: "row 7: correct-horse-battery", label: secretEnv }], 0);
		model.noteReply("The row holds a password.");
		const reply = { content: "The row holds a password.", label: flow.contextLabel };
		await expect(model.admitRequest([reply], 0)).resolves.toMatchObject({ decision: "allow" });
		await denial(model.admitRequest([{ content: "something the model did not say", label: flow.contextLabel }], 0));
	});

	it("withholds a releasable result the host refuses", async () => {
		const { flow, asked } = harness({ approve: false });
		const entered = await flow.model("llm:released").enter({ callId: "c1", content: "secret stuff here", label: secretEnv, signal });
		expect(asked).toHaveLength(1);
		expect(entered.withheld).toBe(true);
		expect(entered.record?.reason).toMatch(/none was approved/);
		await denial(flow.model("llm:released").admitRequest([{ content: "secret stuff here", label: secretEnv }], 0));
	});

	it("lets everything reach a local model that clears secrets", async () => {
		const redactor = createRedactor({ env: {} });
		const flow = new SessionFlow({
			session: "s",
			workspace: "/ws",
			registry: createSinkRegistry(defaultSinkRules({ model: { sink: "llm:local", local: true } })),
			ceiling: taskCeiling(),
			redactor,
			record: async () => {},
		});
		const model = flow.model("llm:local");
		const entered = await model.enter({ callId: "c1", content: `k=${GITHUB_TOKEN}`, label: secretEnv, signal });
		expect(entered).toMatchObject({ withheld: false, content: `k=${GITHUB_TOKEN}` });
		await expect(model.admitRequest([{ content: entered.content, label: entered.label }], 0)).resolves.toMatchObject({ decision: "allow" });
	});
});
