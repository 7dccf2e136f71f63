/**
 * Tool arguments as a hostile model would send them (malformed JSON, wrong types, huge strings, odd
 * Unicode, NUL bytes and escapes in paths), first through the normalizer, the schema validator and the
 * permission decision directly, then through a real session: each call ends as a result the model
 * reads (an invalid, denied or failed call), never as an exception out of the turn, and nothing
 * outside the workspace changes.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PermissionEngine } from "../kernel/admission/permission-engine.js";
import { policy } from "../kernel/admission/test-support/policy-fixtures.js";
import { PERMISSION_MODES } from "../kernel/admission/types.js";
import { checkTraceInvariant } from "../kernel/evidence/trace-invariant.js";
import type { ModelProvider, RawToolCall } from "../models/provider.js";
import { FUZZ_TIMEOUT_MS, fuzzRuns, LONG_FUZZ } from "../test-support/fuzz-runs.js";
import { validateArguments } from "../tools/argument-validator.js";
import { builtinTools } from "../tools/registry.js";
import { Runtime } from "./runtime.js";
import { toolFacts } from "./decide-call.js";
import { normalizeToolCalls } from "./tool-call-normalizer.js";

const TOOLS = builtinTools();
const TOOL_NAMES = TOOLS.map((t) => t.name);
/** Stands for the absolute path of a directory beside the workspace; replaced when a case runs. */
const OUTSIDE = "@OUTSIDE@";

const PATHS = [
	"notes.txt", "sub/new.txt", ".", "", "..", "/", "../outside/pwn.txt", `${OUTSIDE}/abs.txt`, `${OUTSIDE}`, "sub/../../outside/x.txt",
	"notes.txt\u0000../../outside/nul.txt", "\u0000", "a\u0000b", ".git/hooks/pre-commit", ".warden/config.yaml", ".envrc", "\u202etxt.exe",
	"ｎｏｔｅｓ.txt", "notes.txt/", "./notes.txt", "sub//x", "%2e%2e/outside/enc.txt", "..\\outside\\win.txt", "~/fuzz-not-here.txt",
	"$HOME/x", "`id`.txt", "$(id).txt", "x\ny.txt", "\ud800.txt", "CON", `${"sub/".repeat(100)}deep.txt`, "n".repeat(5000),
];
const oddString = fc.oneof(
	fc.constantFrom(...PATHS),
	fc.string({ unit: "binary", maxLength: 60 }),
	fc.string({ unit: "grapheme", maxLength: 30 }),
	fc.integer({ min: 10_000, max: 300_000 }).map((n) => "x".repeat(n)),
	fc.constantFrom("ls", "echo hi", "rm -rf /", "https://example.com", "http://169.254.169.254/", "file:///etc/passwd", "GET", "POST", "BREW", "[", "(a", "\\", "*", "**/*"),
);
const oddValue = fc.oneof(
	{ weight: 6, arbitrary: oddString },
	{ weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
	{ weight: 1, arbitrary: fc.array(oddString, { maxLength: 3 }) },
	{ weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), oddString, { maxKeys: 3 }) },
);

function propertyNames(schema: Record<string, unknown>): string[] {
	const properties = schema.properties;
	return typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
}

/** Arguments for one tool: its own property names with hostile values, stray keys, or raw text. */
const callFor = (name: string) => {
	const tool = TOOLS.find((t) => t.name === name)!;
	const keys = [...propertyNames(tool.inputSchema), "__proto__", "constructor", "extra"];
	const object = fc.dictionary(fc.constantFrom(...keys), oddValue, { maxKeys: keys.length });
	const raw = fc.oneof(
		fc.string({ unit: "binary", maxLength: 80 }),
		object.map((o) => JSON.stringify(o)),
		fc.tuple(object, fc.nat()).map(([o, cut]) => {
			const text = JSON.stringify(o);
			return text.slice(0, cut % (text.length + 1));
		}),
		fc.constantFrom("{", "}", "[]", "null", "42", '"x"', "{\"path\":}", "{\"path\":\"a\",}", "\ufeff{}", "{\"path\":\"notes.txt\"}garbage", "   ", "{\"__proto__\":{\"path\":\"x\"}}"),
	);
	return fc.record({ name: fc.constant(name), arguments: fc.oneof(object, raw) });
};
const anyCall = fc.oneof(
	{ weight: 9, arbitrary: fc.constantFrom(...TOOL_NAMES).chain(callFor) },
	{ weight: 1, arbitrary: fc.record({ name: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("read_file ", "READ_FILE", "register_tool", "", "__proto__", "constructor", "toString", "hasOwnProperty")), arguments: fc.constant("{}") }) },
);

const withOutside = (value: unknown, outside: string): unknown => {
	if (typeof value === "string") return value.replaceAll(OUTSIDE, outside);
	if (Array.isArray(value)) return value.map((v) => withOutside(v, outside));
	if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withOutside(v, outside)]));
	return value;
};

const oneLine = (text: string) => expect(text).not.toMatch(/[\n\r]/);

describe("tool arguments under generated input: normalizer, validator and decision", () => {
	let engine: PermissionEngine;
	beforeAll(async () => {
		engine = await PermissionEngine.create();
	});

	it(
		"turns any arguments into a one-line error or a decision, never an exception",
		() => {
			fc.assert(
				fc.property(anyCall, fc.constantFrom(...PERMISSION_MODES), (call, mode) => {
					const [proposal] = normalizeToolCalls([withOutside(call, "/tmp/outside") as { name: string; arguments: string | Record<string, unknown> }], 1, 1);
					expect(proposal).toBeDefined();
					if (proposal!.decodeError !== undefined) {
						expect(proposal!.args).toBeUndefined();
						return;
					}
					const tool = TOOLS.find((t) => t.name === proposal!.name);
					if (!tool) return;
					const validated = validateArguments(tool, proposal!.args);
					if (!validated.ok) {
						oneLine(validated.error);
						expect(validated.error.startsWith(`${tool.name}: `)).toBe(true);
						return;
					}
					const result = engine.decide(toolFacts(tool, validated.value), validated.value, policy({ mode }));
					expect(["allow", "ask", "deny"]).toContain(result.decision);
					oneLine(result.reason);
				}),
				fuzzRuns(300, 0.9),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});

describe("tool arguments under generated input: through a real session", () => {
	let root: string;
	let workspace: string;
	let outside: string;
	let runtime: Runtime;
	const SENTINEL = "the host's own file\n";
	/** Tool calls sent through sessions: this property's cases are sessions, its family counts calls. */
	let callsSent = 0;

	beforeAll(async () => {
		root = await mkdtemp(join(tmpdir(), "warden-fuzz-args-"));
		workspace = join(root, "ws");
		outside = join(root, "outside");
		await mkdir(join(workspace, "sub"), { recursive: true });
		await mkdir(outside);
		await writeFile(join(outside, "sentinel.txt"), SENTINEL);
		runtime = await Runtime.open({ stateDir: join(root, "state"), env: process.env });
	});
	afterAll(async () => {
		if (LONG_FUZZ) console.log(`tool calls sent through sessions: ${callsSent}`);
		await runtime?.close();
		await rm(root, { recursive: true, force: true });
	});

	it(
		"ends every hostile call as a result the model reads, keeps the evidence whole, and changes nothing outside the workspace",
		async () => {
			await fc.assert(
				fc.asyncProperty(fc.array(anyCall, { minLength: 1, maxLength: 6 }), fc.constantFrom(...PERMISSION_MODES), async (calls, mode) => {
					await writeFile(join(workspace, "notes.txt"), "hello\n");
					// A provider of its own: the scripted plan format refuses an empty tool name, a real provider may send one.
					const toolCalls = calls.map((c) => withOutside(c, outside) as RawToolCall);
					callsSent += toolCalls.length;
					let step = 0;
					const model: ModelProvider = { spec: "fuzz:model", complete: async () => (step++ === 0 ? { text: "", toolCalls } : { text: "done", toolCalls: [] }) };
					// Shell, sub-agents and the network are refused by a run deny rule: their arguments are
					// still decoded and validated, but no generated command runs on this machine.
					const session = await runtime.openSession({ workspace, mode, model, runDeny: ["shell", "agent", "web_fetch"] });
					const result = await session.send("go");
					expect(result.status, result.error).toBe("completed");
					const events = await runtime.sessionEvents(session.id);
					const report = checkTraceInvariant(events);
					expect(report.ok, JSON.stringify(report)).toBe(true);
					expect((await readdir(root)).sort()).toEqual(["outside", "state", "ws"]);
					expect(await readdir(outside)).toEqual(["sentinel.txt"]);
					expect(await readFile(join(outside, "sentinel.txt"), "utf8")).toBe(SENTINEL);
				}),
				fuzzRuns(15, 0.1 / 3.5),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
