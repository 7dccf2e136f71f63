/** Real hook scripts for tests, in bash and in node, written to a temp dir; each one is a handler. */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HookEvent, HookHandler } from "../hook-types.js";

/** Writes `body` as an executable script in `dir` and returns the command that runs it. */
export function bashHook(dir: string, name: string, body: string): string {
	const file = join(dir, `${name}.sh`);
	writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`);
	chmodSync(file, 0o755);
	return `bash ${JSON.stringify(file)}`;
}

/** A node script that reads the event from stdin, passes it to `body` as `event`, and prints what `body` returns as JSON. */
export function nodeHook(dir: string, name: string, body: string): string {
	const file = join(dir, `${name}.mjs`);
	writeFileSync(
		file,
		`let input = "";\nprocess.stdin.on("data", (c) => (input += c));\nprocess.stdin.on("end", () => {\n\tconst event = JSON.parse(input);\n\tconst out = (() => {\n${body}\n\t})();\n\tif (out !== undefined) process.stdout.write(JSON.stringify(out));\n});\n`,
	);
	return `${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`;
}

export function handler(event: HookEvent, matcher: string, command: string, extra: Partial<HookHandler> = {}): HookHandler {
	return { event, matcher, command, timeoutMs: 10_000, origin: "user", source: `test: hooks.${event}`, ...extra };
}

/** The process's state letter once SIGKILL has had its chance to land: "gone", "Z" or "X" for a dead one; a live one's letter otherwise. */
export async function settledState(pid: string): Promise<string> {
	let state = "gone";
	for (let i = 0; i < 100; i++) {
		state = existsSync(`/proc/${pid}/stat`) ? (readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] ?? "gone") : "gone";
		if (state === "gone" || state === "Z" || state === "X") return state;
		await new Promise((r) => setTimeout(r, 20));
	}
	return state;
}
