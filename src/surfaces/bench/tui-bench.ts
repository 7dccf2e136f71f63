/**
 * The interactive terminal's two figures, each against a yardstick in the same run:
 * - start to a ready prompt: spawning `warden` in a pseudo-terminal until the idle prompt is drawn,
 *   against `warden --version` spawned the same way until it exits (goal: ≤ 2×);
 * - keystroke to echo: one key written to the terminal until the headless emulator shows it in the
 *   prompt, at an idle prompt (yardstick) and while a `!` shell command prints `lines` lines
 *   through the governed pipeline and its card renders (goal: p95 ≤ 50 ms).
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { BenchError } from "./bench-error.js";
import type { EchoTiming, TuiBenchReport } from "./bench-types.js";
import { callTiming } from "./call-timing.js";
import { loadPty, type PtyModules, PtyScreen } from "./pty-screen.js";

export interface TuiBenchOptions {
	wardenBin: string;
	tempDir: string;
	/** Measured starts of each command. */
	runs: number;
	warmupRuns: number;
	/** Lines the shell command prints while keys are typed. */
	lines: number;
	/** Keys typed at the idle prompt, and at most under load. */
	keystrokes: number;
	onProgress: (line: string) => void;
}

/** The idle prompt: a row holding only the prompt mark. */
const isReady = (screen: PtyScreen) => screen.visible().some((row) => row === "›");
/** The whole screen: the status line under the prompt (the first prompt is drawn before it). */
const isDrawn = (screen: PtyScreen) => screen.visible().join("").includes("· sandbox");

/** A command printing `lines` lines in batches of 100 with a short pause between, so typing overlaps it. */
export function floodCommand(lines: number): string {
	const batches = Math.ceil(lines / 100);
	return `for b in $(seq 0 ${batches - 1}); do seq $((b*100+1)) $((b*100+100)) | head -n $((${lines}-b*100)); sleep 0.02; done`;
}

function echoTiming(samplesMs: number[]): EchoTiming {
	const sorted = [...samplesMs].sort((a, b) => a - b);
	const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
	return { samples: sorted.length, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: sorted[sorted.length - 1] ?? 0 };
}

/** The exit code, or a BenchError when the program has not left after `ms`. */
function exitWithin(screen: PtyScreen, ms: number, what: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			screen.kill();
			reject(new BenchError(`terminal: ${what} did not exit; the screen shows:\n${screen.visible().join("\n")}`));
		}, ms);
		void screen.exited.then((code) => {
			clearTimeout(timer);
			resolve(code);
		});
	});
}

/** Types one key and waits until the prompt row shows the typed text; the milliseconds it took. */
async function echo(screen: PtyScreen, typed: string, key: string): Promise<number> {
	const want = typed + key;
	const started = performance.now();
	screen.write(key);
	await screen.waitFor(() => screen.visible().some((row) => row.endsWith(want)), 10_000);
	return performance.now() - started;
}

export async function benchTui(options: TuiBenchOptions): Promise<TuiBenchReport | undefined> {
	const modules = await loadPty();
	if (!modules) {
		options.onProgress("terminal: skipped (the dev dependencies @lydell/node-pty and @xterm/headless are not installed)");
		return undefined;
	}
	const base = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-tui-")));
	try {
		return await measure(modules, options, base);
	} finally {
		rmSync(base, { recursive: true, force: true });
	}
}

async function measure(modules: PtyModules, options: TuiBenchOptions, base: string): Promise<TuiBenchReport> {
	const { wardenBin, runs, warmupRuns, onProgress } = options;
	const plan = join(base, "plan.yaml");
	// The chat's own model answers once; the flood runs as the person's `!` command, not the model's.
	writeFileSync(plan, "steps:\n  - text: ok\n");
	const env = { WARDEN_HOME: join(base, "state"), XDG_CONFIG_HOME: join(base, "config"), WARDEN_MODEL: "", WARDEN_CONFIG: "", NO_COLOR: "" };
	const chatArgs = [wardenBin, "--model", `scripted:${plan}`, "--workspace", base, "--mode", "full-access", "--state-dir", join(base, "state")];
	const start = async (args: string[], until: (s: PtyScreen) => Promise<unknown>): Promise<{ us: number; screen: PtyScreen; startedAt: number }> => {
		const started = performance.now();
		const screen = new PtyScreen(modules, process.execPath, args, { cols: 100, rows: 40, env });
		try {
			await until(screen);
		} catch (err) {
			screen.kill();
			throw new BenchError(`terminal: ${args.slice(1).join(" ")} never got ready: ${(err as Error).message.split("\n")[0]}`);
		}
		return { us: (performance.now() - started) * 1000, screen, startedAt: started };
	};

	onProgress(`terminal: ${warmupRuns} warm-up and ${runs} measured starts of warden --version and of the chat, interleaved`);
	const version: number[] = [];
	const ready: number[] = [];
	const drawn: number[] = [];
	for (let r = 0; r < warmupRuns + runs; r++) {
		const v = await start([wardenBin, "--version"], async (s) => {
			const [code] = await Promise.all([s.exited, s.waitFor(/\d+\.\d+\.\d+/)]);
			if (code !== 0) throw new Error(`exited ${code}`);
		});
		const c = await start(chatArgs, (s) => s.waitFor(() => isReady(s), 30_000));
		await c.screen.waitFor(() => isDrawn(c.screen), 30_000);
		const drawnUs = (performance.now() - c.startedAt) * 1000;
		c.screen.write("\u0004");
		await exitWithin(c.screen, 30_000, "the chat after Ctrl-D");
		if (r >= warmupRuns) {
			version.push(v.us);
			ready.push(c.us);
			drawn.push(drawnUs);
		}
	}

	onProgress(`terminal: keystroke to echo, ${options.keystrokes} keys at an idle prompt, then while ${options.lines} lines of shell output go through`);
	// Keys are timed on the whole screen, not on the first prompt drawn before it.
	const { screen } = await start(chatArgs, (s) => s.waitFor(() => isReady(s) && isDrawn(s), 30_000));
	try {
		const idle: number[] = [];
		let typed = "";
		for (let i = 0; i < options.keystrokes; i++) {
			const key = String.fromCharCode(97 + (i % 26));
			idle.push(await echo(screen, `› ${typed}`, key));
			typed += key;
		}
		screen.write("\u0015");
		await screen.waitFor(() => isReady(screen));
		// A script in the workspace: the flood's arithmetic would make the command itself opaque, and asked about.
		writeFileSync(join(base, "flood.sh"), `${floodCommand(options.lines)}\n`);
		screen.write("!sh flood.sh\r");
		const seen = await screen.waitFor(/running for|\[y\] allow once/, 30_000);
		if (!seen.includes("running for")) {
			screen.write("y");
			await screen.waitFor("running for", 30_000);
		}
		const loaded: number[] = [];
		typed = "";
		// Keys while the command runs, and until its card has rendered the result.
		while (loaded.length < options.keystrokes && !/completed in/.test(screen.text())) {
			const key = String.fromCharCode(97 + (loaded.length % 26));
			loaded.push(await echo(screen, `… ${typed}`, key));
			typed += key;
		}
		// The card's tail: the last lines of the output as the model got it (cut to its budget on a flood).
		await screen.waitFor(/completed in[\s\S]*│ /, 60_000).catch(() => {
			throw new BenchError("terminal: the card never showed the tail of the command's output");
		});
		screen.write("\u0015");
		await screen.waitFor(() => isReady(screen));
		screen.write("\u0004");
		await exitWithin(screen, 30_000, "the chat after Ctrl-D");
		if (loaded.length === 0) throw new BenchError("terminal: the shell command finished before one key could be typed under load");
		const versionTiming = callTiming(version);
		const readyTiming = callTiming(ready);
		const idleEcho = echoTiming(idle);
		const loadedEcho = echoTiming(loaded);
		return {
			runs,
			warmupRuns,
			version: versionTiming,
			readyPrompt: readyTiming,
			readyRatio: readyTiming.medianUs / versionTiming.medianUs,
			screenReady: callTiming(drawn),
			lines: options.lines,
			idleEcho,
			loadedEcho,
			echoRatio: loadedEcho.p95Ms / Math.max(idleEcho.p95Ms, 0.001),
		};
	} finally {
		screen.kill();
	}
}
