/**
 * The authority a session opens with: its capability set (the host's grants, else the mode's
 * preset) and its task ceiling, checked before the session exists so a bad grant is a
 * configuration error, not a refusal in the middle of a turn.
 */
import type { IdentityScope } from "../kernel/admission/program-identity.js";
import type { ShellParse } from "../kernel/admission/shell/shell-parses.js";
import type { PermissionMode } from "../kernel/admission/types.js";
import { Authority } from "../kernel/authority/authority.js";
import { AuthorityFormatError } from "../kernel/authority/authority-errors.js";
import { sessionGrants } from "../kernel/authority/session-grants.js";
import { type TaskCeiling, taskCeiling } from "../kernel/authority/task-ceiling.js";
import { RuntimeConfigError } from "./runtime-config-error.js";
import type { SessionOptions } from "./session-options.js";

export function sessionCeiling(options: Pick<SessionOptions, "ceiling">): TaskCeiling {
	return configured(() => taskCeiling(options.ceiling ?? {}));
}

export function sessionAuthority(
	options: Pick<SessionOptions, "grants">,
	mode: PermissionMode,
	ceiling: TaskCeiling,
	holder: string,
	shell: ShellParse,
	identity?: IdentityScope,
): Authority {
	const grants = configured(() => sessionGrants(mode, options.grants, holder));
	return identity ? new Authority({ grants, ceiling, shell, identity }) : new Authority({ grants, ceiling, shell });
}

function configured<T>(build: () => T): T {
	try {
		return build();
	} catch (err) {
		if (err instanceof AuthorityFormatError) throw new RuntimeConfigError(err.message);
		throw err;
	}
}
