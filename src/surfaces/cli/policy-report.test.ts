import { describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../config/config-types.js";
import type { PolicyCheck } from "../../runtime/policy-check.js";
import { runVerdict } from "../../runtime/policy-verdict.js";
import { policyReport, renderPolicyReport } from "./policy-report.js";

const config: ResolvedConfig = {
	workspace: "/w",
	mode: { value: "workspace-write", source: "default" },
	onAsk: { value: "deny", source: "default" },
	maxSteps: { value: 50, source: "default" },
	rules: { allow: [], ask: [], deny: [] },
	runDeny: [],
	flow: { sinks: [], secret_files: [] },
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
	capability: {
		admitted: false,
		ceiling: "0123456789abcdef0123",
		assumedApproved: true,
		checks: [],
		note: "/etc/hosts is outside the workspace: the primitive refuses it before any grant is consulted",
	},
	verdict: { outcome: "allow", by: "decision", planes: [] },
};
ask.verdict = runVerdict(ask);

describe("policy check output", () => {
	it("says what warden run would do with an ask, under the on_ask in force", () => {
		const text = renderPolicyReport(policyReport(ask, config));
		expect(text).toBe(
			[
				// The rules would ask, but the primitive refuses the path: a run is refused.
				'DENY write_file {"path":"/etc/hosts","content":"x"}',
				"  decision   ask",
				"  capability deny (the headline)",
				"  layer      mode-rule",
				"  rule       write_file(<outside the workspace>) from mode:workspace-write",
				`  reason     ${ask.reason}`,
				"  capability refused: /etc/hosts is outside the workspace: the primitive refuses it before any grant is consulted",
				"  ceiling    0123456789ab",
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

	it("prints each capability check with the grant that admits it or why it is refused", () => {
		const capability: PolicyCheck["capability"] = {
			admitted: false,
			ceiling: "feedfacecafe0000",
			assumedApproved: false,
			checks: [
				{ resource: "shell:git status", right: "exec", admitted: true, grant: "mode:workspace-write:shell", source: "preset workspace-write", verdict: "allowed by grant mode:workspace-write:shell (preset workspace-write)" },
				{ resource: "shell:rm -r build", right: "exec", admitted: false, reason: "ceiling", verdict: "refused: outside the task ceiling feedfacecafe" },
			],
		};
		const text = renderPolicyReport(policyReport({ ...ask, decision: "allow", capability }, config));
		expect(text).toContain("  capability exec shell:git status: allowed by grant mode:workspace-write:shell (preset workspace-write)\n");
		expect(text).toContain("  capability exec shell:rm -r build: refused: outside the task ceiling feedfacecafe\n  ceiling    feedfacecafe\n");
		expect(policyReport({ ...ask, capability }, config).capability.checks[1]?.reason).toBe("ceiling");
	});

	it("prints the flow block: each sink's verdict, the rule with its source, the payload's label, the model's sink", () => {
		const flow: NonNullable<PolicyCheck["flow"]> = {
			label: { sensitivity: "internal", integrity: "trusted", sources: [] },
			egress: true,
			files: [{ path: ".env", label: { sensitivity: "secret", integrity: "trusted", sources: [{ kind: "file", ref: ".env" }] } }],
			sinks: [
				{
					operation: "shell.exec",
					sink: "net:http://127.0.0.1:9",
					clearance: { sink: "net:http://127.0.0.1:9", trust: "untrusted", max: "internal", rule: "net:http://127.0.0.1:* (user config /u/config.yaml)" },
					label: { sensitivity: "secret", integrity: "trusted", sources: [{ kind: "file", ref: ".env" }] },
					decision: "deny",
					why: "secret data (from file .env) is above what net:http://127.0.0.1:9 clears (untrusted, up to internal)",
					ceiling_bounds: true,
				},
			],
			model: {
				sink: "llm:openai/gpt-4o",
				locality: "remote",
				clearance: { sink: "llm:openai/gpt-4o", trust: "untrusted", max: "internal", rule: "llm:openai/gpt-4o (default: remote model)" },
				redact_model_context: "untrusted",
				redacts: true,
				secret_results: "withheld",
				why: "tool results labelled secret are withheld from llm:openai/gpt-4o: secret data is above what it clears",
			},
		};
		const report = policyReport({ ...ask, flow }, config);
		expect(report.flow).toBe(flow);
		expect(renderPolicyReport(report)).toContain(
			[
				"  flow       label internal, trusted",
				"  flow file  .env: secret",
				"  flow sink  deny shell.exec net:http://127.0.0.1:9",
				"             rule    net:http://127.0.0.1:* (user config /u/config.yaml) (untrusted, up to internal); the task ceiling's sinks bound it",
				"             payload secret, trusted (from file .env)",
				`             why     ${flow.sinks[0]!.why}`,
				"  model sink llm:openai/gpt-4o (remote) rule llm:openai/gpt-4o (default: remote model) (untrusted, up to internal)",
				`             ${flow.model!.why}`,
				"  on ask ",
			].join("\n"),
		);
		expect("flow" in policyReport(ask, config)).toBe(false);
		expect(renderPolicyReport(policyReport(ask, config))).not.toContain("flow");
	});
});
