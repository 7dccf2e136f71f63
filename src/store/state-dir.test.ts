import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveStateDir } from "./state-dir.js";

describe("resolveStateDir", () => {
	const env = {
		HOME: "/home/ada",
		WARDEN_HOME: "/srv/warden",
		XDG_STATE_HOME: "/var/xdg",
	};

	it("prefers the explicit flag, made absolute", () => {
		expect(resolveStateDir("/tmp/w", env)).toBe("/tmp/w");
		expect(resolveStateDir("rel/state", env)).toBe(resolve("rel/state"));
		expect(resolveStateDir("~/w", env)).toBe("/home/ada/w");
	});

	it("falls back to WARDEN_HOME", () => {
		expect(resolveStateDir(undefined, env)).toBe("/srv/warden");
		expect(resolveStateDir("", env)).toBe("/srv/warden");
	});

	it("falls back to $XDG_STATE_HOME/warden", () => {
		expect(
			resolveStateDir(undefined, {
				HOME: "/home/ada",
				XDG_STATE_HOME: "/var/xdg",
			}),
		).toBe("/var/xdg/warden");
	});

	it("ignores a relative XDG_STATE_HOME, as the XDG spec requires", () => {
		expect(resolveStateDir(undefined, { HOME: "/home/ada", XDG_STATE_HOME: "xdg" })).toBe(
			"/home/ada/.local/state/warden",
		);
	});

	it("falls back to ~/.local/state/warden", () => {
		expect(resolveStateDir(undefined, { HOME: "/home/ada" })).toBe("/home/ada/.local/state/warden");
		expect(resolveStateDir(undefined, {})).toBe(join(homedir(), ".local", "state", "warden"));
	});
});
