/** Drives the real `warden` in a pseudo-terminal, its screen read back through a headless terminal emulator. */
import { loadPty, type PtyOptions, PtyScreen as Screen } from "../../src/surfaces/bench/pty-screen.js";
import { BIN, CONFIG_HOME, STATE_HOME } from "./cli-harness.js";

const modules = await loadPty();
if (!modules) throw new Error("the terminal tests need the dev dependencies @lydell/node-pty and @xterm/headless");

/** `warden <args>` in a pseudo-terminal, with the e2e tests' empty config and state homes. */
export class PtyScreen extends Screen {
	constructor(args: string[], opts: PtyOptions = {}) {
		super(modules as NonNullable<typeof modules>, process.execPath, [BIN, ...args], {
			...opts,
			env: { WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, ...opts.env },
		});
	}
}
