import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { serverCodeRoots } from "./server-code-roots.js";

describe("serverCodeRoots", () => {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-code-roots-")));
	const pkg = join(base, "pkg");
	mkdirSync(join(pkg, "dist", "bin"), { recursive: true });
	writeFileSync(join(pkg, "package.json"), "{}");
	writeFileSync(join(pkg, "dist", "bin", "server.mjs"), "");
	const loose = join(base, "loose");
	mkdirSync(loose);
	writeFileSync(join(loose, "server.mjs"), "");

	it("shows a script's whole package (its node_modules come along), found from an absolute or a cwd-relative path", () => {
		expect(serverCodeRoots("node", [join(pkg, "dist", "bin", "server.mjs"), "--stdio"], undefined)).toEqual([pkg]);
		expect(serverCodeRoots("node", ["dist/bin/server.mjs"], pkg)).toEqual([pkg]);
	});

	it("a file outside any package gives its own folder; words that name no file give nothing", () => {
		const roots = serverCodeRoots("node", [join(loose, "server.mjs"), "stdio", "/no/such/file.js"], undefined);
		// The temp dir may itself sit below a package.json on some machines; then that package is shown.
		expect(roots).toHaveLength(1);
		expect(join(loose, "server.mjs").startsWith(roots[0] as string)).toBe(true);
		expect(serverCodeRoots("npx", ["-y", "@modelcontextprotocol/server-everything", "stdio"], undefined)).toEqual([]);
	});

	it("never a folder that holds /tmp, which would show the host's /tmp over the private one", () => {
		expect(serverCodeRoots("/bin/sh", [], undefined).every((root) => !"/tmp/".startsWith(`${root}/`))).toBe(true);
		expect(serverCodeRoots("/bin/sh", [], undefined)).toContain(dirname(realpathSync("/bin/sh")));
	});
});

describe("serverCodeRoots with a linked node_modules", () => {
	it("shows where the linked modules really are, since node loads them by their real paths", () => {
		const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-code-roots-link-")));
		const store = join(base, "store", "node_modules");
		mkdirSync(store, { recursive: true });
		const pkg = join(base, "pkg");
		mkdirSync(pkg);
		writeFileSync(join(pkg, "package.json"), "{}");
		writeFileSync(join(pkg, "server.mjs"), "");
		symlinkSync(store, join(pkg, "node_modules"));
		expect(serverCodeRoots("node", [join(pkg, "server.mjs")], undefined)).toEqual([pkg, store]);
	});
});

describe("serverCodeRoots for an installed server", () => {
	it("shows the outermost node_modules, where an installed package's hoisted dependencies are", () => {
		const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-code-roots-installed-")));
		const entry = join(base, "node_modules", "@scope", "server", "dist", "index.js");
		mkdirSync(dirname(entry), { recursive: true });
		writeFileSync(join(base, "node_modules", "@scope", "server", "package.json"), "{}");
		writeFileSync(entry, "");
		expect(serverCodeRoots("node", [entry, "/workspace"], undefined)).toEqual([join(base, "node_modules")]);
	});
});
