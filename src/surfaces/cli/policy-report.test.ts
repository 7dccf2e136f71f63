import { describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../config/config-types.js";
import type { PolicyCheck } from "../../runtime/policy-check.js";
import { policyReport, renderPolicyReport } from "./policy-report.js";

const config: ResolvedConfig = {
	workspace: "/w",
	mode: { value: "workspace-write", source: "default" },
	onAsk: { value: "deny", source: "default" },
	maxSteps: { value: 50, source: "default" },
	rules: { allow: [], ask: [], deny: [] },
	runDeny: [],
	budget: {},
	budgetSources: {},
	layers: [],
	trustedProject: false,
	ignored: [],
};

const ask: PolicyCheck = {
	valid: true,
	tool: "write_file",
	arguments: { path: "/etc/hosts", content: "x" },
	workspace: "/w",
	mode: "workspace-write",
	decision: "ask",
	layer: "mode-rule",
	reason: "workspace-write mode rule write_file(<outside the workspace>) matched write_file /etc/hosts",
	rule: { text: "write_file(<outside the workspace>)", source: "mode:workspace-write" },
	shadowed: [],
};

describe("policy check output", () => {
	it("says what warden run would do with an ask, under the on_ask in force", () => {
		const text = renderPolicyReport(policyReport(ask, config));
		expect(text).toBe(
			[
				'ASK write_file {"path":"/etc/hosts","content":"x"}',
				"  layer      mode-rule",
				"  rule       write_file(<outside the workspace>) from mode:workspace-write",
				`  reason     ${ask.reason}`,
				"  on ask     deny (default): warden run would refuse this call",
				"  mode       workspace-write (default)",
				"  workspace  /w",
				"",
			].join("\n"),
		);
		const approving = renderPolicyReport(policyReport(ask, { ...config, onAsk: { value: "allow", source: "user config /u" } }));
		expect(approving).toContain("  on ask     allow (user config /u): warden run would approve this call\n");
	});

	it("a decision no rule made says so, and the JSON leaves the rule out", () => {
		const byDefault: PolicyCheck = { ...ask, decision: "allow", layer: "tool-default", reason: "read_file is allowed by default" };
		delete byDefault.rule;
		const report = policyReport(byDefault, config);
		expect("rule" in report).toBe(false);
		expect(renderPolicyReport(report)).toContain("  rule       none\n");
		expect(renderPolicyReport(report)).not.toContain("on ask");
	});
});
