/**
 * Drives the real `warden` in a pseudo-terminal (node-pty) and reads the screen back through a
 * headless terminal emulator (@xterm/headless): what a person would see, row by row.
 */
import { createRequire } from "node:module";
import type { IPty } from "@lydell/node-pty";
import { BIN, CONFIG_HOME, STATE_HOME } from "./cli-harness.js";

const require = createRequire(import.meta.url);
const pty = require("@lydell/node-pty") as typeof import("@lydell/node-pty");
const { Terminal } = require("@xterm/headless") as typeof import("@xterm/headless");

export interface PtyOptions {
	cols?: number;
	rows?: number;
	env?: NodeJS.ProcessEnv;
}

export class PtyScreen {
	private readonly term: InstanceType<typeof Terminal>;
	private readonly proc: IPty;
	/** Everything the program wrote, raw, for the escape sequences a screen does not keep. */
	raw = "";
	readonly exited: Promise<number>;
	private waiters = new Set<() => void>();

	constructor(args: string[], opts: PtyOptions = {}) {
		const cols = opts.cols ?? 100;
		const rows = opts.rows ?? 40;
		this.term = new Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
		this.proc = pty.spawn(process.execPath, [BIN, ...args], {
			cols,
			rows,
			env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, TERM: "xterm-256color", ...opts.env } as Record<string, string>,
		});
		this.proc.onData((data) => {
			this.raw += data;
			this.term.write(data, () => {
				for (const w of [...this.waiters]) w();
			});
		});
		this.exited = new Promise((resolve) => this.proc.onExit((e) => resolve(e.exitCode)));
	}

	/** The screen and its scrollback as text, one row a line, trailing blanks trimmed. */
	text(): string {
		const b = this.term.buffer.active;
		const rows: string[] = [];
		for (let i = 0; i < b.length; i++) rows.push(b.getLine(i)?.translateToString(true) ?? "");
		return rows.join("\n").replace(/\n+$/, "");
	}

	/** The rows a person sees now (no scrollback). */
	visible(): string[] {
		const b = this.term.buffer.active;
		const rows: string[] = [];
		for (let i = b.viewportY; i < b.viewportY + this.term.rows; i++) rows.push(b.getLine(i)?.translateToString(true) ?? "");
		return rows;
	}

	write(keys: string): void {
		this.proc.write(keys);
	}

	resize(cols: number, rows: number): void {
		this.proc.resize(cols, rows);
		this.term.resize(cols, rows);
	}

	/** Resolves with the screen once it holds `what`; rejects with the screen after `timeoutMs`. */
	waitFor(what: string | RegExp | ((screen: string) => boolean), timeoutMs = 15_000): Promise<string> {
		const test = typeof what === "function" ? what : (s: string) => (typeof what === "string" ? s.includes(what) : what.test(s));
		return new Promise((resolve, reject) => {
			const check = () => {
				const screen = this.text();
				if (!test(screen)) return false;
				this.waiters.delete(check);
				clearTimeout(timer);
				resolve(screen);
				return true;
			};
			const timer = setTimeout(() => {
				this.waiters.delete(check);
				reject(new Error(`screen never showed ${String(what)}; it shows:\n${this.text()}`));
			}, timeoutMs);
			this.waiters.add(check);
			check();
		});
	}

	/** How many times `what` occurs on the screen and in the scrollback. */
	count(what: string): number {
		return this.text().split(what).length - 1;
	}

	kill(): void {
		try {
			this.proc.kill();
		} catch {
			// Already gone.
		}
	}
}
