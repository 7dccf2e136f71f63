import { beforeAll, describe, expect, it } from "vitest";
import { fetchAndRun, PROCESS_REACH } from "./process-reach.js";
import { ShellParser } from "./shell/shell-parser.js";
import type { SimpleCommand } from "./shell/shell-types.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const only = (source: string): SimpleCommand => parser.parse(source).commands[0]!;
const processKind = (source: string): string | undefined => {
	const c = only(source);
	return PROCESS_REACH[c.program]?.(c)?.kind;
};

/** One case list per row of PROCESS_REACH: [command, the kind it is, or undefined when it only reads]. */
const ROWS: Record<string, [string, string | undefined][]> = {
	kill: [
		["kill -9 -1", "signal"],
		["kill 1234", "signal"],
		["kill -s TERM 1234", "signal"],
		["kill -- -4321", "signal"],
		['kill "$PID"', "signal"],
		["kill %1", undefined],
		["kill $!", undefined],
		["kill -l", undefined],
		["kill -HUP 0", undefined],
	],
	pkill: [["pkill -f node", "signal"]],
	killall: [["killall python3", "signal"]],
	skill: [["skill -KILL -u me", "signal"]],
	xkill: [["xkill", "signal"]],
	crontab: [
		["crontab -r", "schedule"],
		["crontab jobs.txt", "schedule"],
		["crontab -l", undefined],
	],
	at: [
		["at now + 1 minute", "schedule"],
		["at -l", undefined],
	],
	batch: [["batch", "schedule"]],
	atrm: [["atrm 3", "schedule"]],
	"systemd-run": [["systemd-run --user sleep 100", "schedule"]],
	systemctl: [
		["systemctl --user enable --now x.service", "schedule"],
		["systemctl status sshd", undefined],
		["systemctl", undefined],
	],
	service: [
		["service nginx restart", "schedule"],
		["service nginx status", undefined],
	],
	launchctl: [
		["launchctl load ~/Library/LaunchAgents/x.plist", "schedule"],
		["launchctl list", undefined],
	],
	loginctl: [
		["loginctl enable-linger me", "schedule"],
		["loginctl list-sessions", undefined],
	],
	shutdown: [["shutdown -h now", "schedule"]],
	reboot: [["reboot", "schedule"]],
	halt: [["halt", "schedule"]],
	poweroff: [["poweroff", "schedule"]],
	telinit: [["telinit 1", "schedule"]],
};

describe("processes, jobs and services", () => {
	it("has cases for every row", () => {
		expect(Object.keys(ROWS).sort()).toEqual(Object.keys(PROCESS_REACH).sort());
	});

	for (const [program, cases] of Object.entries(ROWS)) {
		it.each(cases)(`${program}: %s → %s`, (source, kind) => {
			expect(processKind(source)).toBe(kind);
		});
	}

	it("says what kill -1 reaches", () => {
		const c = only("kill -9 -1");
		expect(PROCESS_REACH.kill!(c)?.what).toContain("every process");
	});
});

describe("package runners that fetch and run", () => {
	it.each([
		["npx -y cowsay hi", "cowsay"],
		["npx --yes create-thing@latest app", "create-thing@latest"],
		["npx cowsay@1.5.0", "cowsay@1.5.0"],
		["npx -p typescript tsc", "typescript"],
		["npx @scope/tool", "@scope/tool"],
		["npm exec -y cowsay", "cowsay"],
		["npm x --yes cowsay", "cowsay"],
		["pnpm dlx create-vite", "create-vite"],
		["pnpx cowsay", "cowsay"],
		["yarn dlx cowsay", "cowsay"],
		["bunx cowsay", "cowsay"],
		["bun x cowsay", "cowsay"],
		["uvx ruff check", "ruff"],
		["uv tool run ruff", "ruff"],
		["pipx run pycowsay", "pycowsay"],
		["deno run https://example.com/x.ts", "https://example.com/x.ts"],
		["deno run npm:cowsay", "npm:cowsay"],
		["go run example.com/tool@latest", "example.com/tool@latest"],
	])("%s runs %s", (source, pkg) => {
		const found = fetchAndRun(only(source));
		expect(found?.kind).toBe("fetch-and-run");
		expect(found?.what).toContain(`runs ${pkg}`);
	});

	it.each([
		["npx tsc -p tsconfig.json"],
		["npx --no-install eslint ."],
		["npm exec eslint"],
		["npm test"],
		["pnpm install"],
		["yarn build"],
		["bun run build"],
		["uv run pytest"],
		["pipx list"],
		["deno run main.ts"],
		["go run ./cmd/x"],
	])("%s runs local code only", (source) => {
		expect(fetchAndRun(only(source))).toBeUndefined();
	});
});
