/**
 * The page's built files (dist/console-page, made by `npm run build`), served from memory: read
 * once at start, so a request can only ever get one of the files that were there, by exact name.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export interface ConsoleAssets {
	/** By URL path ("/index.html", "/assets/index-abc.js"). */
	files: Map<string, { body: Buffer; type: string }>;
	/** Set when the page was not built: what every page request answers. */
	missing?: string;
}

/** Content types by extension; a file of any other kind is not served. */
const TYPES: Readonly<Record<string, string>> = {
	".html": "text/html; charset=utf-8",
	".js": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
	".png": "image/png",
	".ico": "image/x-icon",
	".json": "application/json",
	".woff2": "font/woff2",
};

/** The repository's (or package's) dist/console-page, whether this file runs from src or dist. */
export function defaultAssetDir(): string {
	return join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "dist", "console-page");
}

export function loadAssets(dir: string = defaultAssetDir()): ConsoleAssets {
	const files: ConsoleAssets["files"] = new Map();
	if (!existsSync(join(dir, "index.html"))) return { files, missing: `the console page is not built (no ${join(dir, "index.html")}): run npm run build` };
	const walk = (at: string) => {
		for (const name of readdirSync(at)) {
			const full = join(at, name);
			if (statSync(full).isDirectory()) walk(full);
			else {
				const type = TYPES[extname(name)];
				if (type !== undefined) files.set(`/${relative(dir, full).split(sep).join("/")}`, { body: readFileSync(full), type });
			}
		}
	};
	walk(dir);
	return { files };
}

/** A file by its exact path; any other path that is not an API route gets the page (it routes by hash). */
export function serveAsset(assets: ConsoleAssets, path: string): Response {
	if (assets.missing !== undefined) return new Response(`${assets.missing}\n`, { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } });
	if (path.startsWith("/api/")) return Response.json({ error: `no such API route: ${path}` }, { status: 404 });
	const file = assets.files.get(path) ?? (extname(path) === "" ? assets.files.get("/index.html") : undefined);
	if (file === undefined) return Response.json({ error: `no such file: ${path}` }, { status: 404 });
	return new Response(new Uint8Array(file.body), { headers: { "content-type": file.type } });
}
