/**
 * A program in a pseudo-terminal (node-pty) with its screen read back through a headless terminal
 * emulator (@xterm/headless): what a person would see, row by row. Both are dev dependencies, so
 * they are loaded on demand; `loadPty` says when they are not installed.
 */
import type { IPty } from "@lydell/node-pty";
import type { Terminal } from "@xterm/headless";

export interface PtyModules {
	spawn: typeof import("@lydell/node-pty").spawn;
	Terminal: typeof Terminal;
}

/** The two modules, or undefined where they are not installed (a production install of Warden). */
export async function loadPty(): Promise<PtyModules | undefined> {
	try {
		const [pty, xterm] = await Promise.all([import("@lydell/node-pty"), import("@xterm/headless")]);
		// CommonJS packages: their exports arrive as the default export.
		const ptyModule = pty.default ?? pty;
		const xtermModule = xterm.default ?? xterm;
		return { spawn: ptyModule.spawn, Terminal: xtermModule.Terminal };
	} catch {
		return undefined;
	}
}

export interface PtyOptions {
	cols?: number;
	rows?: number;
	env?: Record<string, string | undefined>;
	cwd?: string;
}

export class PtyScreen {
	private readonly term: Terminal;
	private readonly proc: IPty;
	/** Everything the program wrote, raw, for the escape sequences a screen does not keep. */
	raw = "";
	readonly exited: Promise<number>;
	private readonly waiters = new Set<() => void>();

	constructor(modules: PtyModules, file: string, args: string[], opts: PtyOptions = {}) {
		const cols = opts.cols ?? 100;
		const rows = opts.rows ?? 40;
		this.term = new modules.Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
		this.proc = modules.spawn(file, args, { cols, rows, ...(opts.cwd ? { cwd: opts.cwd } : {}), env: { ...process.env, TERM: "xterm-256color", ...opts.env } as Record<string, string> });
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

	/** The rows a person sees now (no scrollback), trailing blanks trimmed. */
	visible(): string[] {
		const b = this.term.buffer.active;
		const rows: string[] = [];
		for (let i = b.viewportY; i < b.viewportY + this.term.rows; i++) rows.push((b.getLine(i)?.translateToString(true) ?? "").trimEnd());
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
				if (!test(screen)) return;
				this.waiters.delete(check);
				clearTimeout(timer);
				resolve(screen);
			};
			const timer = setTimeout(() => {
				this.waiters.delete(check);
				reject(new Error(`screen never showed ${String(what)}; it shows:\n${this.text()}`));
			}, timeoutMs);
			this.waiters.add(check);
			check();
		});
	}

	kill(): void {
		try {
			this.proc.kill();
		} catch {
			// Already gone.
		}
	}
}
