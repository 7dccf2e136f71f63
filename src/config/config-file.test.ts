import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { readConfigFile } from "./config-file.js";
import { CONFIG_SCHEMA_PATH, fieldName } from "./config-schema.js";

const dir = mkdtempSync(join(tmpdir(), "warden-config-file-"));
let n = 0;

function file(text: string): string {
	const path = join(dir, `config-${++n}.yaml`);
	writeFileSync(path, text);
	return path;
}

function problem(text: string): string {
	const path = file(text);
	try {
		readConfigFile(path, "project", true);
	} catch (err) {
		expect(err).toBeInstanceOf(ConfigError);
		const message = (err as Error).message;
		expect(message.split("\n")).toHaveLength(1);
		expect(message.startsWith(`config ${path}: `)).toBe(true);
		return message.slice(`config ${path}: `.length);
	}
	throw new Error(`expected ${text} to be refused`);
}

describe("readConfigFile", () => {
	it("reads every key, YAML or JSON, and names the layer and file as the source", () => {
		const yamlPath = file(
			[
				"$schema: https://warden.dev/schemas/config.v1.json",
				"mode: plan",
				"model: ollama:qwen",
				"rules: { allow: ['shell(npm test)'], ask: ['write_file(package.json)'], deny: ['shell(git push *)'] }",
				"run_deny: ['shell(rm *)']",
				"on_ask: deny",
				"max_steps: 20",
				"budget: { tool_calls: 10, shell_ms: 0 }",
				"trusted_projects: ['/srv/repo']",
			].join("\n"),
		);
		const layer = readConfigFile(yamlPath, "user", true)!;
		expect(layer.source).toBe(`user config ${yamlPath}`);
		expect(layer.data.mode).toBe("plan");
		expect(layer.data.rules?.deny).toEqual(["shell(git push *)"]);
		expect(layer.data.budget).toEqual({ tool_calls: 10, shell_ms: 0 });
		const jsonPath = file(JSON.stringify({ mode: "read-only", rules: { allow: ["read_file"] } }));
		expect(readConfigFile(jsonPath, "project", true)!.data).toEqual({ mode: "read-only", rules: { allow: ["read_file"] } });
	});

	it("an empty file configures nothing; a missing default file is no layer, a missing named one an error", () => {
		expect(readConfigFile(file(""), "user", true)!.data).toEqual({});
		expect(readConfigFile(join(dir, "absent.yaml"), "user", false)).toBeUndefined();
		expect(() => readConfigFile(join(dir, "absent.yaml"), "user", true)).toThrow(`config ${join(dir, "absent.yaml")}: does not exist`);
	});

	it("names the file and the field in one line for each kind of schema violation", () => {
		expect(problem("rules:\n  allow: ['read_file', 'shell(ls)', 3]\n")).toBe("rules.allow[2] must be a string, got number 3");
		expect(problem("rulez: {}\n")).toBe("rulez is not a known key (known: mode, model, models, rules, run_deny, on_ask, max_steps, context, budget, grants, ceiling, flow, protected_paths, trusted_projects, memory, mcpServers, hooks)");
		expect(problem("rules: { allw: [] }\n")).toBe("rules.allw is not a known key (known: allow, ask, deny)");
		expect(problem("mode: yolo\n")).toBe('mode must be one of read-only, workspace-write, full-access, plan, got string "yolo"');
		expect(problem("on_ask: sometimes\n")).toMatch(/^on_ask must be one of deny, allow/);
		expect(problem("max_steps: 0\n")).toBe("max_steps must be at least 1, got number 0");
		expect(problem("max_steps: 2.5\n")).toBe("max_steps must be an integer, got number 2.5");
		expect(problem("budget: { tool_calls: -1 }\n")).toBe("budget.tool_calls must be at least 0, got number -1");
		expect(problem("budget: { wall_time: 5 }\n")).toMatch(/^budget\.wall_time is not a known key \(known: tool_calls, model_calls,/);
		expect(problem("run_deny: shell(rm *)\n")).toBe('run_deny must be a list, got string "shell(rm *)"');
		expect(problem("- mode\n")).toBe("the file must be a mapping, got a list");
		expect(problem("model: ''\n")).toBe("model must not be empty");
	});

	it("parses rules at load time, so a bad rule fails with the file and field named", () => {
		expect(problem("rules: { deny: ['shell(git push *)', 'shell(git push'] }\n")).toBe(
			'rules.deny[1]: invalid permission rule "shell(git push": expected tool or tool(pattern)',
		);
		expect(problem("run_deny: ['shell()']\n")).toMatch(/^run_deny\[0\]: invalid permission rule "shell\(\)": /);
	});

	it("refuses YAML that does not parse and trusted projects that are not absolute paths", () => {
		expect(problem("mode: [unclosed\n")).toMatch(/^not valid YAML or JSON \(/);
		expect(problem("trusted_projects: ['repo']\n")).toBe('trusted_projects[0] must be an absolute path, got "repo"');
	});

	it("reads a flow section: sink rules, secret files and redaction", () => {
		const path = file(
			[
				"flow:",
				"  sinks:",
				"    - { sink: 'net:https://api.example.com:443', trust: trusted, max: secret }",
				"    - { sink: 'net:http://127.0.0.1:*', trust: untrusted, max: internal, release: secret, min_integrity: trusted }",
				"    - { sink: 'llm:openai/*', trust: untrusted, max: public, release: internal }",
				"  secret_files: ['config/prod.yaml', '**/*.tfstate']",
				"  redact_model_context: untrusted",
			].join("\n"),
		);
		expect(readConfigFile(path, "user", true)!.data.flow).toEqual({
			sinks: [
				{ sink: "net:https://api.example.com:443", trust: "trusted", max: "secret" },
				// Above an untrusted sink's clearance, only a human's exact one-shot release lets a payload out.
				{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "internal", release: "secret", min_integrity: "trusted" },
				{ sink: "llm:openai/*", trust: "untrusted", max: "public", release: "internal" },
			],
			secret_files: ["config/prod.yaml", "**/*.tfstate"],
			redact_model_context: "untrusted",
		});
		expect(readConfigFile(file("flow: {}\n"), "user", true)!.data.flow).toEqual({});
	});

	it("refuses a bad flow section in one line naming the field", () => {
		const sink = (rule: string) => problem(`flow:\n  sinks:\n    - ${rule}\n`);
		expect(problem("flow: { sink: [] }\n")).toBe("flow.sink is not a known key (known: sinks, secret_files, redact_model_context)");
		expect(sink("{ sink: 'llm:x', trust: trusted, max: secret, clearance: secret }")).toMatch(/^flow\.sinks\[0\]\.clearance is not a known key \(known: sink, trust, max, release, min_integrity\)$/);
		expect(problem("flow: { redact_model_context: sometimes }\n")).toBe('flow.redact_model_context must be one of always, untrusted, never, got string "sometimes"');
		expect(sink("{ sink: 'llm:x', trust: maybe, max: public }")).toBe('flow.sinks[0].trust must be one of trusted, untrusted, got string "maybe"');
		expect(sink("{ sink: 'llm:x', trust: trusted, max: top-secret }")).toBe('flow.sinks[0].max must be one of public, internal, secret, got string "top-secret"');
		expect(sink("{ sink: 'llm:x', trust: trusted }")).toMatch(/^flow\.sinks\[0\] must have required property 'max'$/);
		expect(sink("{ sink: 'mail:host', trust: trusted, max: public }")).toMatch(/^flow\.sinks\[0\]\.sink must match pattern/);
		expect(sink("{ sink: 'net:', trust: trusted, max: public }")).toBe('flow.sinks[0].sink: resource pattern "net:" names nothing after "net:"');
		expect(sink("{ sink: 'net:http://127.0.0.1:*', trust: untrusted, max: secret }")).toBe("flow.sinks[0].max: an untrusted sink clears at most internal, not secret");
		expect(sink("{ sink: 'llm:x', trust: trusted, max: internal, release: internal }")).toBe("flow.sinks[0].release must be above max (internal), not internal");
		expect(sink("{ sink: 'llm:x', trust: trusted, max: secret, release: public }")).toBe("flow.sinks[0].release must be above max (secret), not public");
		expect(problem("flow: { secret_files: ['ok/*.pem', 'conf/[prod.yaml'] }\n")).toMatch(/^flow\.secret_files\[1\]: "conf\/\[prod\.yaml" is not a valid glob \(Missing closing: "\]"/);
		expect(problem("flow: { secret_files: ['**/*.{pem'] }\n")).toMatch(/^flow\.secret_files\[0\]: "\*\*\/\*\.\{pem" is not a valid glob/);
		expect(problem("flow: { secret_files: ['/etc/shadow'] }\n")).toBe('flow.secret_files[0]: "/etc/shadow" must be workspace-relative');
		expect(problem("flow: { secret_files: ['../other/.env'] }\n")).toBe('flow.secret_files[0]: "../other/.env" must stay inside the workspace (no .. segment)');
		expect(problem("flow: { secret_files: ['!public/**'] }\n")).toBe('flow.secret_files[0]: "!public/**" is a negation; secret_files only adds files');
		expect(problem("flow: { secret_files: [''] }\n")).toBe("flow.secret_files[0] must not be empty");
	});

	it("turns JSON pointers into the field names users write", () => {
		expect(fieldName("")).toBe("");
		expect(fieldName("/rules/allow/2")).toBe("rules.allow[2]");
		expect(fieldName("/budget/a~1b")).toBe("budget.a/b");
	});

	it("the published schema is draft 2020-12, strict, and lists exactly the keys the loader accepts", () => {
		const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, "utf8")) as { $schema: string; properties: object; additionalProperties: boolean };
		expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
		expect(schema.additionalProperties).toBe(false);
		expect(Object.keys(schema.properties)).toEqual(["$schema", "mode", "model", "models", "rules", "run_deny", "on_ask", "max_steps", "context", "budget", "grants", "ceiling", "flow", "protected_paths", "trusted_projects", "memory", "mcpServers", "hooks"]);
		const validate = new Ajv2020({ strict: true }).compile(schema);
		expect(validate({ mode: "plan", budget: { bytes_read: 1024 } })).toBe(true);
		expect(validate({ modes: "plan" })).toBe(false);
		const flow = { sinks: [{ sink: "llm:openai/*", trust: "untrusted", max: "public", release: "internal", min_integrity: "trusted" }], secret_files: ["**/*.tfstate"], redact_model_context: "always" };
		expect(validate({ flow })).toBe(true);
		expect(validate({ flow: { sinks: [{ sink: "llm:x", trust: "trusted" }] } })).toBe(false);
		expect(validate({ flow: { redact: "always" } })).toBe(false);
	});
});
