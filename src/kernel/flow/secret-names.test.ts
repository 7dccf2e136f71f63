import { describe, expect, it } from "vitest";
import { isSecretField, isSecretName } from "./secret-names.js";

/** [name, secret as a field of structured data, secret as a name in free text] */
const NAMES: [string, boolean, boolean][] = [
	["password", true, true],
	["api_key", true, true],
	["accessToken", true, true],
	["AWS_SECRET_ACCESS_KEY", true, true],
	["Authorization", true, false],
	["cookie", true, false],
	["max_tokens", false, false],
	["keyboard", false, false],
	["key", false, false],
	["monkey_key", false, false],
	["path", false, false],
	[`${"x".repeat(200)}_token`, true, true],
	["y".repeat(200), false, false],
];

describe("isSecretField and isSecretName", () => {
	it.each(NAMES)("%s: field %s, name %s, the same when asked again", (name, field, free) => {
		expect(isSecretField(name)).toBe(field);
		expect(isSecretField(name)).toBe(field);
		expect(isSecretName(name)).toBe(free);
	});

	it("still answers each name by its words after more distinct keys than it remembers", () => {
		for (let i = 0; i < 10_000; i++) expect(isSecretField(`field_${i}${i % 7 === 0 ? "_secret" : ""}`)).toBe(i % 7 === 0);
		for (const [name, field] of NAMES) expect(isSecretField(name)).toBe(field);
	});
});
