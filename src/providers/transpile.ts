/**
 * TypeScript → the script QuickJS runs (src/providers/quickjs/run-isolated.ts): esbuild strips the
 * types and wraps the module in an iife that leaves its exports in `globalThis.__warden_tool`.
 * Imports are refused here: a JIT tool's only way out is `syscall`.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

/** esbuild is loaded on the first compile, not at start-up (it is large, and most runs compile nothing). */
let esbuild: typeof import("esbuild") | undefined;
function transformSync(...args: Parameters<typeof import("esbuild").transformSync>): ReturnType<typeof import("esbuild").transformSync> {
	esbuild ??= createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
	return esbuild.transformSync(...args);
}

export interface TranspiledTool {
	code: string;
	/** sha256 hex of the TypeScript source: the tool's identity for registration and approval. */
	sha256: string;
}

export class TranspileError extends Error {
	override name = "TranspileError";
}

export function transpileTool(source: string): TranspiledTool {
	const sha256 = createHash("sha256").update(source).digest("hex");
	let esm: string;
	let code: string;
	try {
		esm = transformSync(source, { loader: "ts", format: "esm", target: "es2020", sourcefile: "tool.ts" }).code;
		code = transformSync(esm, { loader: "js", format: "iife", globalName: "__warden_tool", target: "es2020", sourcefile: "tool.js" }).code;
	} catch (err) {
		throw new TranspileError(describe(err));
	}
	// esbuild prints each static import or re-export at the start of its own line.
	const imported = /^\s*(import\s*[\w{*"'$]|export\s*(\*|\{[^}]*\})\s*from\b)/m.exec(esm);
	if (imported) throw new TranspileError("tool.ts: imports are not available to a JIT tool; use syscall");
	if (!/\bexport\s+default\b|\bas default\b/.test(esm)) throw new TranspileError("tool.ts: the module must export default async function (input, syscall)");
	return { code, sha256 };
}

function describe(err: unknown): string {
	const errors = (err as { errors?: { text: string; location?: { line: number; column: number } | null }[] }).errors;
	const first = errors?.[0];
	if (first) return `tool.ts${first.location ? `:${first.location.line}:${first.location.column + 1}` : ""}: ${first.text}`;
	return `tool.ts: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
}
