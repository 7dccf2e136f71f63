import { describe, expect, it } from "vitest";
import type { DecisionResult } from "../admission/types.js";
import { approvedRuleSource, exactRulePatterns, toPermissionRule } from "./approved-rules.js";

const ask: DecisionResult = { decision: "ask", layer: "tool-default", reason: "asks" };
const file = (resource: string) => ({ resource, kind: "file" as const, digest: "absent" });
const command = { resource: "npm test; git push", kind: "command" as const, digest: "x" };

describe("exactRulePatterns", () => {
	it("persists the exact path of a file call", () => {
		expect(exactRulePatterns(file("src/a.ts"), ask, "allow")).toEqual({ ok: true, patterns: ["src/a.ts"] });
	});

	it("refuses an allow whose text would be a glob, so an answer never widens into a pattern", () => {
		expect(exactRulePatterns(file("src/*.ts"), ask, "allow")).toMatchObject({ ok: false, why: expect.stringMatching(/glob characters/) });
		const globbing: DecisionResult = { ...ask, subcommands: [{ command: "rm *.log", decision: "ask", layer: "tool-default", reason: "" }] };
		expect(exactRulePatterns(command, globbing, "allow")).toMatchObject({ ok: false, why: expect.stringMatching(/glob characters/) });
		expect(exactRulePatterns(command, globbing, "deny")).toEqual({ ok: true, patterns: ["rm *.log"] });
	});

	it("names only the sub-commands that asked, and refuses to allow an opaque one", () => {
		const decision: DecisionResult = {
			...ask,
			subcommands: [
				{ command: "npm test", decision: "allow", layer: "host-rule", reason: "" },
				{ command: "git push", decision: "ask", layer: "tool-default", reason: "" },
			],
		};
		expect(exactRulePatterns(command, decision, "allow")).toEqual({ ok: true, patterns: ["git push"] });
		const opaque: DecisionResult = { ...ask, subcommands: [{ command: "eval x", decision: "ask", layer: "tool-default", reason: "", opaque: true }] };
		expect(exactRulePatterns(command, opaque, "allow")).toMatchObject({ ok: false });
	});

	it("refuses a path that does not resolve inside the workspace", () => {
		expect(exactRulePatterns({ resource: "../x", kind: "file", digest: "unresolvable" }, ask, "deny")).toMatchObject({ ok: false });
	});
});

describe("toPermissionRule", () => {
	it("makes a rule sourced by the approved rule's id", () => {
		const rule = toPermissionRule({
			id: 7,
			tool: "shell",
			pattern: "git push origin main",
			outcome: "deny",
			workspace: "/w",
			created_at: "",
			created_by: "host",
			session: "s",
		});
		expect(rule).toEqual({ tool: "shell", pattern: "git push origin main", outcome: "deny", source: approvedRuleSource(7), text: "shell(git push origin main)" });
		expect(rule.source).toBe("approved rule #7");
	});
});
