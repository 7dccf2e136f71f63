// Builds the console's page (web/console, React) into dist/console-page with Vite, which
// transforms the TSX itself. No inline script or style is emitted: the page's CSP allows neither.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

await build({
	root: join(root, "web", "console"),
	base: "./",
	configFile: false,
	logLevel: "warn",
	publicDir: false,
	define: { "process.env.NODE_ENV": JSON.stringify("production") },
	build: {
		outDir: join(root, "dist", "console-page"),
		emptyOutDir: true,
		modulePreload: { polyfill: false },
		assetsInlineLimit: 0,
		sourcemap: false,
	},
});
