#!/usr/bin/env node
/**
 * Bundles the chat's screen with Ink and React (and their few hundred modules: es-toolkit alone
 * is four hundred files) into one file, dist/surfaces/tui/screen.bundle.js, so the chat reads one
 * file where it would resolve and read hundreds. Warden's own modules stay outside the bundle
 * (imported from dist as they are), so there is one copy of each. React is its production build.
 * Never fails the build: without esbuild the chat loads the unbundled screen.
 */
import { existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "dist", "surfaces", "tui", "screen.js");
const out = join(root, "dist", "surfaces", "tui", "screen.bundle.js");
rmSync(out, { force: true });
if (!existsSync(entry)) {
	process.stderr.write("bundle-screen: dist/surfaces/tui/screen.js is missing; run tsc first\n");
	process.exit(0);
}

let esbuild;
try {
	esbuild = await import("esbuild");
} catch {
	process.stderr.write("bundle-screen: esbuild is not installed; the chat loads the unbundled screen\n");
	process.exit(0);
}

/** Warden's own modules (relative imports from dist) stay outside; the devtools Ink loads only under DEV=true are left out. */
const plugin = {
	name: "warden-screen",
	setup(build) {
		build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: "react-devtools-core", namespace: "left-out" }));
		build.onLoad({ filter: /.*/, namespace: "left-out" }, () => ({ contents: "throw new Error('react-devtools-core is not part of the bundled screen');", loader: "js" }));
		build.onResolve({ filter: /^\.\.?\// }, (args) => (args.kind === "entry-point" || args.importer.includes("node_modules") ? undefined : { path: args.path, external: true }));
	},
};

try {
	await esbuild.build({
		entryPoints: [entry],
		outfile: out,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		minify: true,
		legalComments: "linked",
		define: { "process.env.NODE_ENV": '"production"' },
		// React and its reconciler are CommonJS: their require() calls need one in an ES module.
		banner: { js: 'import { createRequire as __wardenRequire } from "node:module"; const require = __wardenRequire(import.meta.url);' },
		plugins: [plugin],
		logLevel: "warning",
	});
} catch (err) {
	rmSync(out, { force: true });
	process.stderr.write(`bundle-screen: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}; the chat loads the unbundled screen\n`);
}
