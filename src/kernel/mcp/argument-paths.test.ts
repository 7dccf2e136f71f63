import { describe, expect, it } from "vitest";
import { argumentStrings, candidatePath, isPathKey, schemaPathKeys } from "./argument-paths.js";

describe("which MCP arguments name files", () => {
	it("knows path-like property names, compared without case, _ or -", () => {
		for (const key of ["path", "paths", "file_path", "filePath", "inputFile", "out-dir", "Directory", "source", "destination"]) expect(isPathKey(key)).toBe(true);
		for (const key of ["text", "query", "content", "pattern", "head"]) expect(isPathKey(key)).toBe(false);
	});

	it("takes schema properties whose description speaks of a path, directory or file name", () => {
		const schema = { type: "object", properties: { target: { type: "string" }, where: { type: "string", description: "The directory to list" }, text: { type: "string", description: "What to write to the file" } } };
		expect(schemaPathKeys(schema)).toEqual(["target", "where"]);
	});

	it("finds strings at any depth, keyed by the property that holds them (an array's too)", () => {
		const found = argumentStrings({ paths: ["a", "b"], options: { file_path: "c", note: "d" }, where: "e" }, ["where"]);
		expect(found).toEqual([
			{ value: "a", keyed: true },
			{ value: "b", keyed: true },
			{ value: "c", keyed: true },
			{ value: "d", keyed: false },
			{ value: "e", keyed: true },
		]);
	});

	it("a keyed relative path names a workspace file; an unkeyed one only if it exists; absolute, ~ and file: URIs always; text with a line break never", () => {
		const ws = "/w";
		expect(candidatePath({ value: ".env", keyed: true }, ws)).toEqual({ abs: "/w/.env", mustExist: false });
		expect(candidatePath({ value: ".env", keyed: false }, ws)).toEqual({ abs: "/w/.env", mustExist: true });
		expect(candidatePath({ value: "/etc/app/.env", keyed: false }, ws)).toEqual({ abs: "/etc/app/.env", mustExist: false });
		expect(candidatePath({ value: "~/.ssh/id_rsa", keyed: false }, ws)).toEqual({ outside: "~/.ssh/id_rsa" });
		expect(candidatePath({ value: "file:///w/keys/server.pem", keyed: false }, ws)).toEqual({ abs: "/w/keys/server.pem", mustExist: false });
		expect(candidatePath({ value: "https://example.com/.env", keyed: true }, ws)).toBeUndefined();
		expect(candidatePath({ value: "line one\n.env", keyed: true }, ws)).toBeUndefined();
	});
});
