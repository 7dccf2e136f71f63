import { describe, expect, it } from "vitest";
import { taskCeiling } from "../authority/task-ceiling.js";
import { flowVerdict } from "./egress-admission.js";
import type { SinkClearance } from "./flow-types.js";
import { label } from "./label.js";

const open = taskCeiling();
const envFile = { kind: "file" as const, ref: ".env" };
const secret = label("secret", "trusted", envFile);
const internal = label("internal", "trusted");
const tainted = label("internal", "untrusted", { kind: "url", ref: "https://x.example/" });

const loopback: SinkClearance = { sink: "net:http://127.0.0.1:9", trust: "untrusted", max: "internal", rule: "default: unmatched sink" };
const api: SinkClearance = { sink: "net:https://api.example.com:443", trust: "trusted", max: "internal", release: "secret", rule: "r" };

describe("flowVerdict", () => {
	it("allows data within the sink's clearance", () => {
		expect(flowVerdict(loopback, internal, open).decision).toBe("allow");
	});

	it("denies data above clearance with a one-line why naming the source", () => {
		const v = flowVerdict(loopback, secret, open);
		expect(v.decision).toBe("deny");
		expect(v.decision === "deny" && v.why).toBe("secret data (from file .env) is above what net:http://127.0.0.1:9 clears (untrusted, up to internal)");
	});

	it("asks for a release when the rule allows one up to that level", () => {
		const v = flowVerdict(api, secret, open);
		expect(v.decision).toBe("release");
		expect(v.decision === "release" && v.why).toMatch(/exact release/);
	});

	it("refuses untrusted data to a sink requiring trusted integrity, whatever the release", () => {
		const strict: SinkClearance = { ...api, min_integrity: "trusted" };
		const v = flowVerdict(strict, tainted, open);
		expect(v.decision).toBe("deny");
		expect(v.decision === "deny" && v.why).toMatch(/untrusted data \(from url https:\/\/x.example\/\) may not reach/);
		expect(flowVerdict(strict, internal, open).decision).toBe("allow");
	});

	it("bounds a kind of sink only when the ceiling names that kind", () => {
		const ceiling = taskCeiling({ sinks: ["net:https://api.example.com:*"] });
		expect(flowVerdict(api, internal, ceiling).decision).toBe("allow");
		const v = flowVerdict(loopback, label("public", "trusted"), ceiling);
		expect(v.decision).toBe("deny");
		expect(v.decision === "deny" && v.why).toMatch(/task ceiling's sinks do not include net:http:\/\/127.0.0.1:9/);
		const fsSink: SinkClearance = { sink: "fs:notes.md", trust: "trusted", max: "secret", rule: "r" };
		expect(flowVerdict(fsSink, secret, ceiling).decision).toBe("allow");
	});

	it("admits nothing through a ceiling sink pattern it cannot read", () => {
		const ceiling = taskCeiling({ sinks: ["net:"] });
		expect(flowVerdict(loopback, label("public", "trusted"), ceiling).decision).toBe("deny");
	});
});
