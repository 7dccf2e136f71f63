/**
 * The store speaks rows: nothing under src/store (sources, tests and test support alike) imports
 * the kernel or anything above it. What a row needs from the kernel comes in at open (StoreRules).
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const storeDir = path.dirname(fileURLToPath(import.meta.url));
const srcDir = path.dirname(storeDir);
const IMPORT_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;
/** The layers above the store, by their folder under src/. */
const ABOVE = ["kernel", "tools", "runtime", "surfaces", "models", "extensions"];

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const full = path.join(dir, e.name);
		if (e.isDirectory()) return sourceFiles(full);
		return e.name.endsWith(".ts") ? [full] : [];
	});
}

/** The layer a relative import from `file` lands in, or undefined for a package or node: module. */
function layerOf(file: string, spec: string): string | undefined {
	if (!spec.startsWith(".")) return undefined;
	const target = path.relative(srcDir, path.resolve(path.dirname(file), spec));
	return target.startsWith("..") ? undefined : target.split(path.sep)[0];
}

function offenders(files: readonly string[], read: (file: string) => string): string[] {
	return files.flatMap((file) =>
		[...read(file).matchAll(IMPORT_SPECIFIER)]
			.map((m) => m[1]!)
			.filter((spec) => ABOVE.includes(layerOf(file, spec) ?? ""))
			.map((spec) => `${path.relative(srcDir, file)} imports ${spec}`),
	);
}

describe("store layering", () => {
	it("finds the store sources it checks", () => {
		expect(sourceFiles(storeDir).map((f) => path.basename(f))).toEqual(expect.arrayContaining(["store.ts", "sqlite-store.ts", "contract-tests.ts"]));
	});

	it("no file under src/store imports the kernel or a layer above it", () => {
		expect(offenders(sourceFiles(storeDir), (file) => readFileSync(file, "utf8"))).toEqual([]);
	});

	it("the check itself catches an import of the kernel, a dynamic one and one from test support", () => {
		const files = [path.join(storeDir, "sqlite-store.ts"), path.join(storeDir, "test-support", "x.ts")];
		// Built from parts, so this file's own text holds no such import for the scan above to find.
		const from = (spec: string) => `from "${spec}";`;
		const text: Record<string, string> = {
			[files[0]!]: `import type { Label } ${from("../kernel/flow/label.js")}\nimport { x } ${from("./store.js")}\nconst r = await import${"("}"../runtime/runtime.js");\nimport Database ${from("better-sqlite3")}`,
			[files[1]!]: `import { GENESIS_HASH } ${from("../../kernel/evidence/audit-chain.js")}\nimport { y } ${from("../store.js")}`,
		};
		expect(offenders(files, (file) => text[file]!)).toEqual([
			"store/sqlite-store.ts imports ../kernel/flow/label.js",
			"store/sqlite-store.ts imports ../runtime/runtime.js",
			"store/test-support/x.ts imports ../../kernel/evidence/audit-chain.js",
		]);
	});
});
