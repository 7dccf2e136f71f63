/** The keys that answer an ask, as data: one row per key, one test per row. */
import type { ApprovalResponseKind } from "../../kernel/approval/approval-types.js";

/** An approval: y once, a always allow, d always deny, n or Esc deny. */
export const APPROVAL_KEYS: Readonly<Record<string, ApprovalResponseKind>> = {
	y: "allow_once",
	a: "always_allow",
	d: "always_deny",
	n: "deny",
	escape: "deny",
};

/** An exact release, or a yes/no question of the terminal's own (full-access, carrying out a plan). */
export const YES_NO_KEYS: Readonly<Record<string, boolean>> = {
	y: true,
	n: false,
	escape: false,
};

/** How a key reads in the tables: the lower-case letter, or `escape`. */
export function keyName(input: string, isEscape: boolean): string {
	return isEscape ? "escape" : input.toLowerCase();
}
