/**
 * The scripted-plan format under generated input: any text or decoded value is a valid plan or a
 * one-line ModelError naming the plan, never a crash; and the parser accepts exactly what the
 * published JSON Schema accepts.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../test-support/fuzz-runs.js";
import { ModelError } from "./provider.js";
import { ScriptedModel } from "./scripted.js";
import { decodeScriptedPlanText, parseScriptedPlan, SCRIPTED_PLAN_SCHEMA } from "./scripted-plan.js";

const odd = fc.oneof(
	fc.string({ maxLength: 12 }),
	fc.string({ unit: "binary", maxLength: 12 }),
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.constantFrom("", "shell", "read_file", "{}", "{\"path\":", "\u0000", "__proto__"),
);
const anyValue = fc.oneof({ weight: 4, arbitrary: odd }, { weight: 1, arbitrary: fc.array(odd, { maxLength: 2 }) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), odd, { maxKeys: 2 }) });
const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyValue });

const call = maybe(
	fc.record(
		{
			id: maybe(fc.constantFrom("c1", "", "call_1")),
			name: maybe(fc.constantFrom("read_file", "shell", "", "x")),
			arguments: maybe(fc.oneof(fc.dictionary(fc.constantFrom("path", "command", "__proto__"), odd, { maxKeys: 2 }), fc.string({ maxLength: 20 }))),
			extra: anyValue,
		},
		{ requiredKeys: [] },
	),
);
const step = maybe(fc.record({ text: maybe(fc.string({ maxLength: 20 })), tool_calls: maybe(fc.array(call, { maxLength: 3 })), other: anyValue }, { requiredKeys: [] }));
const planValue = maybe(fc.record({ description: maybe(fc.string({ maxLength: 20 })), steps: maybe(fc.array(step, { maxLength: 4 })), version: anyValue }, { requiredKeys: [] }));

const planText = fc.oneof(
	{ weight: 3, arbitrary: planValue.map((p) => stringify(p)) },
	{ weight: 3, arbitrary: planValue.map((p) => JSON.stringify(p) ?? "") },
	{
		weight: 2,
		arbitrary: fc.tuple(planValue, fc.nat(), fc.boolean()).map(([p, at, json]) => {
			const text = json ? (JSON.stringify(p) ?? "") : stringify(p);
			return text.slice(0, at % (text.length + 1));
		}),
	},
	{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 80 }) },
	{ weight: 1, arbitrary: fc.constantFrom("", "{", "steps: [", "steps: !!binary aGk=", "? [a]\n: b", "\ufeff{\"steps\": []}", `${"[".repeat(3000)}`, `${"{\"a\":".repeat(3000)}`, "steps:\n  - text: &a x\n    tool_calls: *a") },
);

const validates = new Ajv2020({ strict: false }).compile(SCRIPTED_PLAN_SCHEMA);

function refusedCleanly(err: unknown, label: string): void {
	expect(err, String((err as Error).stack)).toBeInstanceOf(ModelError);
	const message = (err as Error).message;
	expect(message).not.toMatch(/[\n\r]/);
	expect(message.startsWith(`scripted plan ${label}: `)).toBe(true);
}

describe("scripted plans under generated input", () => {
	let dir: string;
	let n = 0;
	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "warden-fuzz-plan-"));
	});
	afterAll(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	it(
		"decodes and checks any plan text into a plan or a one-line ModelError",
		() => {
			fc.assert(
				fc.property(planText, fc.constantFrom("plan.yaml", "plan.json", "plan"), (text, label) => {
					try {
						const plan = parseScriptedPlan(decodeScriptedPlanText(text, label), label);
						expect(Array.isArray(plan.steps)).toBe(true);
					} catch (err) {
						refusedCleanly(err, label);
					}
				}),
				fuzzRuns(300, 0.5),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"accepts a decoded value exactly when the published schema does",
		() => {
			fc.assert(
				fc.property(planValue, (value) => {
					let accepted = true;
					try {
						parseScriptedPlan(value, "plan");
					} catch (err) {
						refusedCleanly(err, "plan");
						accepted = false;
					}
					expect(accepted, `${JSON.stringify(value)}: schema says ${JSON.stringify(validates.errors)}`).toBe(validates(value));
				}),
				fuzzRuns(300, 0.4),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"loads any plan file as a model or a one-line ModelError",
		async () => {
			await fc.assert(
				fc.asyncProperty(planText, fc.constantFrom(".yaml", ".json"), async (text, ext) => {
					const file = join(dir, `plan-${++n}${ext}`);
					await writeFile(file, text);
					try {
						await ScriptedModel.load(file);
					} catch (err) {
						expect(err, String((err as Error).stack)).toBeInstanceOf(ModelError);
						expect((err as Error).message).not.toMatch(/[\n\r]/);
					}
				}),
				fuzzRuns(100, 0.1),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
