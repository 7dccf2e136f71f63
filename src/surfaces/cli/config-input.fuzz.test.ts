/**
 * Config files, rules files and rule text under generated input: random YAML and JSON documents
 * shaped like a config (every key, hostile values), broken text, and rule strings. Each is read as a
 * valid config or refused with a one-line error of a class the CLI shows as is, never a crash.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfigFile } from "../../config/config-file.js";
import { resolveConfig } from "../../config/resolve-config.js";
import { parseRule } from "../../kernel/admission/rules.js";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../../test-support/fuzz-runs.js";
import { readRulesFile } from "./rules-file.js";

/** Error classes whose one-line message the CLI prints as is (cli-error.ts). */
const USER_FACING = ["UsageError", "ConfigError", "RuleSyntaxError", "DirectoryProbeError", "RuntimeConfigError"];

function refusedCleanly(err: unknown, allowed: readonly string[] = USER_FACING): void {
	expect(err).toBeInstanceOf(Error);
	const error = err as Error;
	expect(allowed, `${error.name}: ${error.message}\n${error.stack}`).toContain(error.name);
	expect(error.message).not.toMatch(/[\n\r]/);
	expect(error.message.trim()).not.toBe("");
}

// ---- Rule text ----

const TOOL_WORDS = ["shell", "write_file", "read_file", "edit_file", "web_fetch", "*", "mcp__github__*", "a.b:c", "", " ", "shell shell", "ß", "sh(ll", "?", "\u0000"];
const PATTERN_WORDS = ["git push *", "rm -rf /", "*", "**", "src/**", "(", ")", "((", "))", "\\", "'", '"', "$(x)", "`x`", "|", ";", "&&", "\n", "\u0000", "{a,b}", "[!x]", "?", " ", "", "~/.ssh/*", "..", "-", "--", "a".repeat(2000)];
const ruleText = fc.oneof(
	fc
		.tuple(fc.constantFrom(...TOOL_WORDS), fc.option(fc.array(fc.constantFrom(...PATTERN_WORDS), { maxLength: 6 })), fc.constantFrom("", " ", "\t"))
		.map(([tool, pattern, pad]) => (pattern === null ? `${pad}${tool}` : `${pad}${tool}(${pattern.join(" ")})${pad}`)),
	fc.string({ unit: "binary", maxLength: 60 }),
	fc.string({ unit: "grapheme", maxLength: 40 }),
);

// ---- Config documents ----

const scalar = fc.oneof(
	fc.string({ maxLength: 20 }),
	fc.string({ unit: "binary", maxLength: 20 }),
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.constantFrom(-1, 0, 1, 2 ** 53, 1e308, "", "~", "/", "../..", "2030-01-01T00:00:00Z", "not a date"),
);
const anyValue = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }) });
const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyValue });

const RESOURCES = ["fs:src/**", "fs:**", "shell:git *", "shell:*", "net:https://api.example.com:443", "llm:openai/*", "human:host", "fs:", "shell:", "fs:../**", "fs:/etc/**", "nope:x", "fs:[", "net:*"];
const resource = maybe(fc.constantFrom(...RESOURCES));
const rights = maybe(fc.array(fc.constantFrom("read", "write", "exec", "delete", "fetch", "list", "nope", ""), { maxLength: 4 }));
const scope = maybe(fc.record({ resource, rights }, { requiredKeys: [] }));
const budget = maybe(fc.dictionary(fc.constantFrom("tool_calls", "model_calls", "prompt_tokens", "completion_tokens", "bytes_read", "bytes_written", "shell_ms", "nope"), maybe(fc.integer({ min: -5, max: 1e9 })), { maxKeys: 4 }));
const sensitivity = fc.constantFrom("public", "internal", "secret", "top", "");
const sinkRule = maybe(
	fc.record(
		{ sink: maybe(fc.constantFrom("net:https://api.example.com:443", "llm:openai/*", "fs:public/**", "human:host", "net:*", "x:y")), trust: maybe(fc.constantFrom("trusted", "untrusted")), max: maybe(sensitivity), release: maybe(sensitivity), min_integrity: maybe(fc.constantFrom("trusted", "untrusted")) },
		{ requiredKeys: [] },
	),
);
const rules = fc.array(fc.oneof({ weight: 4, arbitrary: ruleText }, { weight: 1, arbitrary: anyValue }), { maxLength: 4 });

const configDocument = fc.record(
	{
		mode: maybe(fc.constantFrom("read-only", "workspace-write", "full-access", "plan", "yolo")),
		model: maybe(fc.constantFrom("scripted:plan.yaml", "ollama:qwen", "", "openai:")),
		rules: maybe(fc.record({ allow: maybe(rules), ask: maybe(rules), deny: maybe(rules) }, { requiredKeys: [] })),
		run_deny: maybe(rules),
		on_ask: maybe(fc.constantFrom("deny", "prompt", "allow", "ask")),
		max_steps: maybe(fc.integer({ min: -3, max: 1e6 })),
		budget,
		grants: maybe(
			fc.array(
				maybe(
					fc.record(
						{
							id: maybe(fc.constantFrom("g1", "g2", "g1", "")),
							resource,
							rights,
							effect: maybe(fc.constantFrom("allow", "ask", "deny", "maybe")),
							constraints: maybe(fc.record({ max_bytes: maybe(fc.integer({ min: -1, max: 1e9 })), read_only_commands: maybe(fc.boolean()) }, { requiredKeys: [] })),
							expires_at: maybe(fc.constantFrom("2030-01-01T00:00:00Z", "2020-01-01T00:00:00Z", "tomorrow", "")),
							uses: maybe(fc.integer({ min: -1, max: 10 })),
						},
						{ requiredKeys: [] },
					),
				),
				{ maxLength: 3 },
			),
		),
		ceiling: maybe(
			fc.record(
				{ effects: maybe(fc.option(fc.array(scope, { maxLength: 3 }))), exclude: maybe(fc.array(scope, { maxLength: 2 })), sinks: maybe(fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 })), budget, approval: maybe(fc.constantFrom("host", "deny", "never")) },
				{ requiredKeys: [] },
			),
		),
		flow: maybe(
			fc.record(
				{ sinks: maybe(fc.array(sinkRule, { maxLength: 3 })), secret_files: maybe(fc.array(fc.constantFrom("config/prod.yaml", "**/*.tfstate", "", "[", "../x"), { maxLength: 3 })), redact_model_context: maybe(fc.constantFrom("always", "untrusted", "never", "sometimes")) },
				{ requiredKeys: [] },
			),
		),
		trusted_projects: maybe(fc.array(fc.constantFrom("/home/user/p", "relative/p", "", "/"), { maxLength: 2 })),
		$schema: fc.constant("https://warden.dev/schemas/config.v1.json"),
		unknown_key: anyValue,
	},
	{ requiredKeys: [] },
);

const YAML_ODDITIES = [
	"", "---", "~", "null", "[]", "- a\n- b", "42", "'text'", "mode: [", "mode: plan\nmode: plan", "{mode: plan", "a: &x [*x]", "? [a]\n: b",
	"a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
	"!!binary aGVsbG8=", "mode: !!js/function 'function(){}'", "%YAML 1.1\n---\nmode: plan", "\ufeffmode: plan", "mode: plan\u0000", "\t mode: plan",
	"rules:\n  allow:\n    - shell(npm test", `rules: {allow: ["${"(".repeat(500)}"]}`, `${"[".repeat(2000)}`, `${"{a: ".repeat(500)}`, "<<: {mode: plan}",
];
/** A document as YAML or JSON text, sometimes cut short or with a byte changed, or text that is not one. */
const configText = fc.oneof(
	{ weight: 4, arbitrary: configDocument.map((d) => stringify(d)) },
	{ weight: 2, arbitrary: configDocument.map((d) => JSON.stringify(d)) },
	{
		weight: 2,
		arbitrary: fc.tuple(configDocument, fc.nat(), fc.nat({ max: 255 }), fc.boolean()).map(([d, at, byte, cut]) => {
			const text = stringify(d);
			const i = at % (text.length + 1);
			return cut ? text.slice(0, i) : text.slice(0, i) + String.fromCharCode(byte) + text.slice(i + 1);
		}),
	},
	{ weight: 1, arbitrary: fc.constantFrom(...YAML_ODDITIES) },
	{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 120 }) },
);

const rulesFileText = fc.oneof(
	fc.record({ allow: maybe(rules), ask: maybe(rules), deny: maybe(rules), other: anyValue }, { requiredKeys: [] }).map((d) => stringify(d)),
	fc.constantFrom(...YAML_ODDITIES),
	fc.string({ unit: "binary", maxLength: 80 }),
);

describe("config input under generated input", () => {
	let root: string;
	let n = 0;
	beforeAll(async () => {
		root = await mkdtemp(join(tmpdir(), "warden-fuzz-config-"));
	});
	afterAll(async () => {
		await rm(root, { recursive: true, force: true });
	});
	const fileWith = async (text: string): Promise<string> => {
		const path = join(root, `f-${++n}.yaml`);
		await writeFile(path, text);
		return path;
	};

	it(
		"parses any rule text into a rule or a one-line RuleSyntaxError",
		() => {
			fc.assert(
				fc.property(ruleText, fc.constantFrom("allow", "ask", "deny", "maybe"), (text, outcome) => {
					try {
						const rule = parseRule(text, outcome as "allow", "fuzz");
						expect(rule.text).toBe(text.trim());
					} catch (err) {
						refusedCleanly(err, ["RuleSyntaxError"]);
					}
				}),
				fuzzRuns(400, 0.4),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"reads any config file text as a layer or a one-line ConfigError naming the file",
		async () => {
			await fc.assert(
				fc.asyncProperty(configText, async (text) => {
					const path = await fileWith(text);
					try {
						readConfigFile(path, "user", true);
					} catch (err) {
						refusedCleanly(err, ["ConfigError"]);
						expect((err as Error).message.startsWith(`config ${path}: `)).toBe(true);
					}
				}),
				fuzzRuns(200, 0.3),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"reads any rules file text as rules or a one-line UsageError",
		async () => {
			await fc.assert(
				fc.asyncProperty(rulesFileText, async (text) => {
					const path = await fileWith(text);
					try {
						readRulesFile(path);
					} catch (err) {
						refusedCleanly(err, ["UsageError"]);
					}
				}),
				fuzzRuns(150, 0.15),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"resolves any pair of user and project configs (trusted or not) into a config or a one-line user-facing error",
		async () => {
			await fc.assert(
				fc.asyncProperty(configDocument, configText, fc.boolean(), async (userDocument, projectText, trust) => {
					const workspace = join(root, `ws-${++n}`);
					await mkdir(join(workspace, ".warden"), { recursive: true });
					await writeFile(join(workspace, ".warden", "config.yaml"), projectText);
					// A trusted project's loosening items are used, an untrusted one's are dropped: both paths run.
					const user = trust ? { ...userDocument, trusted_projects: [workspace] } : userDocument;
					const configFile = await fileWith(stringify(user));
					try {
						const resolved = await resolveConfig({ workspace, env: {}, configFile });
						expect(["read-only", "workspace-write", "full-access", "plan"]).toContain(resolved.mode.value);
					} catch (err) {
						refusedCleanly(err);
					}
				}),
				fuzzRuns(100, 0.15),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});

describe("regressions found by fuzzing config input", () => {
	it("regression: a config key holding a carriage return or line break is named on one line (found by fuzzing)", async () => {
		const dir = await mkdtemp(join(tmpdir(), "warden-fuzz-key-"));
		try {
			const path = join(dir, "config.yaml");
			await writeFile(path, '"\\rules": []\n"a\\nb": 1\n');
			expect(() => readConfigFile(path, "user", true)).toThrow(`config ${path}: \\rules is not a known key`);
			await writeFile(path, 'mode: "plan\\nx"\n');
			expect(() => readConfigFile(path, "user", true)).toThrow(/^[^\n\r]*$/);
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	});

	it("regression: a rule with a line break in it is refused with a one-line error (found by fuzzing)", () => {
		expect(() => parseRule("shell(\n)", "allow", "fuzz")).toThrow('invalid permission rule "shell(\\n)" (from fuzz): the pattern inside the parentheses is empty');
		expect(() => parseRule("she\nll", "deny", "fuzz")).toThrow(/^[^\n]*$/);
		expect(() => parseRule("shell(echo 'a\nb)", "deny", "fuzz")).toThrow(/^[^\n]*$/);
	});
});

describe("regressions found by fuzzing config input: YAML warnings", () => {
	it("regression: an unresolved tag or a collection key is read without a Node warning on stderr (found by fuzzing)", async () => {
		const dir = await mkdtemp(join(tmpdir(), "warden-fuzz-warn-"));
		const warnings: unknown[] = [];
		const emit = process.emitWarning;
		process.emitWarning = ((warning: unknown) => {
			warnings.push(warning);
		}) as typeof process.emitWarning;
		try {
			const config = join(dir, "config.yaml");
			await writeFile(config, "mode: !!js/function plan\n");
			expect(readConfigFile(config, "user", true)?.data.mode).toBe("plan");
			const rulesFile = join(dir, "rules.yaml");
			await writeFile(rulesFile, "? [a]\n: b\n");
			expect(() => readRulesFile(rulesFile)).toThrow('unknown key "[ a ]"');
		} finally {
			process.emitWarning = emit;
			await rm(dir, { recursive: true, force: true });
		}
		expect(warnings).toEqual([]);
	});
});
