import { describe, expect, it } from "vitest";
import { unsafeAssignment, unsafeEnvPrefix } from "./reader-env.js";

const env = (...names: string[]) => names.map((name) => ({ name }));

describe("unsafeEnvPrefix", () => {
	it.each(["PAGER", "GIT_PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_DIR", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PATH", "RIPGREP_CONFIG_PATH", "EDITOR", "FOO", "lower"])(
		"%s=… before a reader is refused",
		(name) => {
			expect(unsafeEnvPrefix(env(name))).toContain(name);
		},
	);

	it.each(["LC_ALL", "LC_COLLATE", "LANG", "TZ", "COLUMNS", "NO_COLOR", "TERM"])("%s=… before a reader is harmless", (name) => {
		expect(unsafeEnvPrefix(env(name))).toBeUndefined();
	});
});

describe("unsafeAssignment", () => {
	it.each(["PATH", "PAGER", "GIT_EXTERNAL_DIFF", "BASH_ENV", "IFS", "PS4", "path", "fpath"])("%s=… on its own is refused", (name) => {
		expect(unsafeAssignment(env(name))).toContain(name);
	});

	it.each(["f", "dir", "my_var", "LC_ALL", "Files"])("%s=… on its own is a script variable", (name) => {
		expect(unsafeAssignment(env(name))).toBeUndefined();
	});
});
