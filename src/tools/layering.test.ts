import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const toolsDir = path.dirname(fileURLToPath(import.meta.url));
const FORBIDDEN = /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|dgram|tls)$/;
const IMPORT_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const full = path.join(dir, e.name);
		if (e.isDirectory()) return sourceFiles(full);
		return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [full] : [];
	});
}

describe("tools layering", () => {
	it("finds the tool sources it checks", () => {
		expect(sourceFiles(toolsDir).map((f) => path.basename(f))).toEqual(expect.arrayContaining(["shell.ts", "read-file.ts", "grep.ts"]));
	});

	it("no tool imports the filesystem, process or network modules directly", () => {
		const offenders = sourceFiles(toolsDir).flatMap((file) =>
			[...readFileSync(file, "utf8").matchAll(IMPORT_SPECIFIER)]
				.map((m) => m[1]!)
				.filter((spec) => FORBIDDEN.test(spec))
				.map((spec) => `${path.relative(toolsDir, file)} imports ${spec}`),
		);
		expect(offenders).toEqual([]);
	});

	it("the check itself catches each forbidden form", () => {
		const sample = 'import { readFile } from "node:fs/promises";\nimport cp from "child_process";\nconst n = await import("node:net");\nimport * as p from "node:path";';
		const found = [...sample.matchAll(IMPORT_SPECIFIER)].map((m) => m[1]!).filter((s) => FORBIDDEN.test(s));
		expect(found).toEqual(["node:fs/promises", "child_process", "node:net"]);
	});
});
