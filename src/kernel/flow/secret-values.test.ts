import { describe, expect, it } from "vitest";
import { MAX_SECRET_VALUES, secretValues } from "./secret-values.js";

describe("secretValues", () => {
	it("takes the values of dotenv assignments, quotes and comments removed", () => {
		const env = [
			"# database",
			"DB_PASSWORD=hunter2hunter2",
			'export API_TOKEN="tok-123456789"',
			"SHORT=abc",
			"SESSION_KEY='single quoted value'",
			"PLAIN=value-with-comment # note",
			"",
		].join("\n");
		expect(secretValues(".env", env)).toEqual(["hunter2hunter2", "tok-123456789", "single quoted value", "value-with-comment"]);
	});

	it("reads ini sections and yaml-style pairs", () => {
		const ini = "[default]\naws_access_key_id = AKIAEXAMPLE123\naws_secret_access_key = abcdEFGH1234/xyz\n";
		expect(secretValues(".aws/credentials", ini)).toEqual(["AKIAEXAMPLE123", "abcdEFGH1234/xyz"]);
		expect(secretValues("secrets.yaml", "db:\n  password: s3cretpass\n")).toEqual(["s3cretpass"]);
	});

	it("takes a PEM block whole and each body line", () => {
		const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n";
		const values = secretValues("server.pem", pem);
		expect(values[0]).toBe(pem.trim());
		expect(values).toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
		expect(values).toContain("BKcwggSjAgEAAoIBAQC7");
		expect(values.some((v) => v.startsWith("-----END"))).toBe(false);
	});

	it("takes JSON string leaves, including the lines of an escaped key", () => {
		const json = JSON.stringify({ type: "service_account", private_key: "-----BEGIN PRIVATE KEY-----\nAAAABBBBCCCC\n-----END PRIVATE KEY-----\n", nested: { token: "tok-abcdef" } });
		const values = secretValues("service-account.json", json);
		expect(values).toContain("service_account");
		expect(values).toContain("tok-abcdef");
		expect(values).toContain("AAAABBBBCCCC");
	});

	it("takes any other line whole, trimmed", () => {
		expect(secretValues("token", "  ghp_abcdefghijklmnop  \n\nsecond-line-secret\n")).toEqual(["ghp_abcdefghijklmnop", "second-line-secret"]);
	});

	it("is bounded", () => {
		const many = Array.from({ length: 3000 }, (_, i) => `KEY_${i}=value-number-${i}`).join("\n");
		const values = secretValues(".env", many);
		expect(values.length).toBe(MAX_SECRET_VALUES);
		expect(values[0]).toBe("value-number-0");
	});
});
