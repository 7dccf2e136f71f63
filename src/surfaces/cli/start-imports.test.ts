/**
 * What `warden` loads before its command runs: main.ts and everything it imports statically
 * (bin/warden.js adds stdout-pipe.ts), which is no command's declarations at all; then the one
 * command module the arguments name (command-registry.ts imports each lazily). Every command's
 * work is imported inside its action, so no command module loads a runtime, store, provider or
 * config module, nor a kernel module but the constant tables that option descriptions and argument
 * parsers are built from. Type-only imports are erased by the compiler and load nothing.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Kernel modules the command declarations may load, each a table of constants with no logic behind it. */
const KERNEL_TABLES: Record<string, string> = {
	"kernel/admission/types.ts": "PERMISSION_MODES, named in the --mode option's description",
	"kernel/budget/budget-types.ts": "the budget counters --budget is parsed against while the arguments are read",
	"kernel/budget/budget-limits.ts": "the --budget value check, run while the arguments are read",
	"kernel/budget/budget-errors.ts": "the error that check throws",
	"kernel/flow/label.ts": "the sensitivities and integrities --label is checked against (it imports nothing)",
	"kernel/display/visible-text.ts": "the display rule every printed line passes, an error's included (one pure function; it imports nothing)",
};

const HEAVY = ["kernel/", "runtime/", "store/", "providers/", "config/", "tools/"];

/** The specifiers a module imports at load time: `import type` and all-type braces load nothing. */
function valueImports(source: string): string[] {
	const found: string[] = [];
	for (const m of source.matchAll(/^(?:import|export)\s+([^;]*?)\s+from\s+"([^"]+)"/gms)) {
		const clause = m[1]!;
		if (/^type\s/.test(clause)) continue;
		const braces = /^\{([^}]*)\}$/.exec(clause.trim());
		if (braces && braces[1]!.split(",").every((s) => s.trim() === "" || s.trim().startsWith("type "))) continue;
		found.push(m[2]!);
	}
	for (const m of source.matchAll(/^import\s+"([^"]+)"/gm)) found.push(m[1]!);
	return found;
}

/** Every source file loaded by importing `entry`, as paths relative to src/. */
function loadedAtStart(entries: readonly string[]): Set<string> {
	const seen = new Set<string>();
	const visit = (file: string) => {
		const rel = relative(SRC, file);
		if (seen.has(rel)) return;
		seen.add(rel);
		for (const spec of valueImports(readFileSync(file, "utf8"))) {
			if (!spec.startsWith(".")) continue;
			visit(join(dirname(file), spec.replace(/\.js$/, ".ts")));
		}
	};
	for (const entry of entries) visit(join(SRC, entry));
	return seen;
}

/** The modules command-registry.ts imports on demand, as paths relative to src/. */
function commandModules(): string[] {
	const registry = join(SRC, "surfaces/cli/command-registry.ts");
	const specs = [...readFileSync(registry, "utf8").matchAll(/\bimport\("([^"]+)"\)/g)].map((m) => m[1]!);
	return specs.map((spec) => relative(SRC, join(dirname(registry), spec.replace(/\.js$/, ".ts"))));
}

describe("the CLI's start", () => {
	const start = loadedAtStart(["surfaces/cli/main.ts", "surfaces/cli/stdout-pipe.ts"]);
	const modules = commandModules();
	const loaded = loadedAtStart(["surfaces/cli/main.ts", "surfaces/cli/stdout-pipe.ts", ...modules]);

	it("walks the command declarations", () => {
		expect(modules).toContain("surfaces/cli/run-command.ts");
		expect(modules).toContain("surfaces/bench/bench-command.ts");
		expect(loaded).toContain("surfaces/cli/run-command.ts");
		expect(valueImports('import { type A, b } from "./x.js";\nimport type { C } from "./y.js";\nimport { type D } from "./z.js";')).toEqual(["./x.js"]);
	});

	it("declares no command before the arguments are read: main loads only the parser, the error reporting (with the display rule it prints through) and the registry", () => {
		expect([...start].sort()).toEqual([
			"kernel/display/visible-text.ts",
			"surfaces/cli/cli-error.ts",
			"surfaces/cli/command-registry.ts",
			"surfaces/cli/main.ts",
			"surfaces/cli/shown-lines.ts",
			"surfaces/cli/stdout-pipe.ts",
		]);
	});

	it("loads no runtime, store, provider, config or tool module, and of the kernel only constant tables and the display rule", () => {
		const heavy = [...loaded].filter((f) => HEAVY.some((h) => f.startsWith(h)) && KERNEL_TABLES[f] === undefined);
		expect(heavy).toEqual([]);
	});

	it.each(Object.keys(KERNEL_TABLES))("%s is still one of them", (table) => {
		expect(loaded, `${table} is no longer loaded at start: drop it from KERNEL_TABLES`).toContain(table);
	});
});
