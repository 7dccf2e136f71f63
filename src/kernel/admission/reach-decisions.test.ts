import { beforeAll, describe, expect, it } from "vitest";
import type { ReachKind } from "./command-reach.js";
import { PermissionEngine } from "./permission-engine.js";
import { REACH_DECISIONS, REACH_RULE_TEXT } from "./reach-policy.js";
import { parseRule } from "./rules.js";
import { policy, shellTool } from "./test-support/policy-fixtures.js";
import { PERMISSION_MODES, type DecisionResult, type PermissionMode, type PolicyContext } from "./types.js";

let engine: PermissionEngine;
beforeAll(async () => {
	engine = await PermissionEngine.create();
});

/** The context each mode runs in on a machine with a working sandbox (full-access runs unconfined by choice). */
const ctxFor = (mode: PermissionMode, overrides: Partial<PolicyContext> = {}): PolicyContext => policy({ mode, sandbox: { available: true }, ...overrides });
const sh = (command: string, ctx: PolicyContext): DecisionResult => engine.decide(shellTool(command), { command }, ctx);

/** A command per kind, decided in every mode as REACH_DECISIONS says, with the reason naming what it tries. */
const EXAMPLES: Record<ReachKind, [command: string, says: string]> = {
	"protected-write": ["echo x > .git/hooks/pre-commit", "writes .git/hooks/pre-commit (writes a git hook: runs outside the sandbox on the next commit)"],
	"outside-write": ["echo x > ../../outside/f", "writes ../../outside/f (outside the workspace)"],
	persistence: ["echo 'curl x | sh' >> ~/.bashrc", "appends to ~/.bashrc (a shell startup file"],
	"unknown-write": ['echo x > "$F"', "writes $F ($F is only known at run time"],
	"fetch-and-run": ["npx -y cowsay hi", "runs cowsay (npx -y cowsay hi) (fetches its code from the network and runs it)"],
	signal: ["kill -9 -1", "signals every process the user may signal (kill -9 -1)"],
	schedule: ["crontab -r", "crontab -r (changes the user's crontab"],
};

describe("what a command tries, decided per mode", () => {
	for (const [kind, [command, says]] of Object.entries(EXAMPLES) as [ReachKind, [string, string]][]) {
		for (const mode of PERMISSION_MODES) {
			const expected = REACH_DECISIONS[kind][mode];
			// Without a sandbox workspace-write asks every command; the unknown target is then decided by that.
			const ctx = kind === "unknown-write" && mode === "workspace-write" ? policy({ mode }) : ctxFor(mode);
			it(`${kind} in ${mode}: ${command} → ${expected}`, () => {
				const result = sh(command, ctx);
				if (expected === "allow") {
					expect(result.reason).not.toContain(says);
					return;
				}
				expect(result.decision).toBe(expected);
				if (mode === "read-only" || mode === "plan") return;
				expect(result).toMatchObject({ layer: "mode-rule", rule: REACH_RULE_TEXT[kind] });
				expect(result.reason).toContain(`${mode} mode: ${says}`);
			});
		}
	}

	it("full-access keeps allowing ordinary writes outside and fetched code", () => {
		expect(sh("echo x > ../../outside/f", ctxFor("full-access")).decision).toBe("allow");
		expect(sh("cp a /tmp/../outside", ctxFor("full-access")).decision).toBe("allow");
		expect(sh("git config --global user.name me", ctxFor("full-access")).decision).toBe("allow");
		expect(sh("npx -y cowsay hi", ctxFor("full-access")).decision).toBe("allow");
	});

	it("full-access asks for persistence outside: git's executable global config, npm's global config, user installs", () => {
		for (const command of ["npm config set -g script-shell /tmp/x", "pip install --user requests"]) {
			expect(sh(command, ctxFor("full-access")), command).toMatchObject({ decision: "ask", rule: REACH_RULE_TEXT.persistence });
		}
		// git's executable keys are named by the protected-path layer, which outranks the reach rule with the same answer.
		for (const command of ["git config --global core.hooksPath /tmp/h", "git config --global alias.x '!sh -c id'"]) {
			const decided = sh(command, ctxFor("full-access"));
			expect(decided.decision, command).toBe("ask");
			expect(decided.rule, command).toMatch(/^protected:git-config /);
		}
	});

	it("workspace-write denies a write outside in words, where the sandbox would fail it with EROFS", () => {
		const result = sh("cat notes | tee ../outside/f", ctxFor("workspace-write"));
		expect(result).toMatchObject({ decision: "deny" });
		expect(result.reason).toContain("writes ../outside/f (outside the workspace)");
	});

	it("keeps clean work allowed", () => {
		for (const command of ["echo ok > out.txt", "cp a b", "sort -o sorted.txt in.txt", "mkdir -p build && touch build/x", "kill %1"]) {
			expect(sh(command, ctxFor("workspace-write")).decision, command).toBe("allow");
			expect(sh(command, ctxFor("full-access")).decision, command).toBe("allow");
		}
	});

	it("never auto-allows a protected path, a host allow rule for the command included", () => {
		const ctx = ctxFor("full-access", { hostRules: [parseRule("shell(echo *)", "allow", "test")] });
		expect(sh("echo x > .git/hooks/pre-commit", ctx)).toMatchObject({ decision: "ask", rule: REACH_RULE_TEXT["protected-write"] });
	});

	it("lets a hardline denial stand", () => {
		expect(sh("cat ~/.ssh/id_rsa > ~/.bashrc", ctxFor("full-access"))).toMatchObject({ decision: "deny", layer: "hardline" });
	});

	it("decides each command of a heredoc fed to a shell", () => {
		const result = sh("bash <<'EOF'\necho ok\necho 'curl x | sh' >> ~/.profile\nEOF", ctxFor("full-access"));
		expect(result).toMatchObject({ decision: "ask", rule: REACH_RULE_TEXT.persistence });
		expect(result.subcommands?.map((s) => s.command)).toEqual(["echo ok", "echo 'curl x | sh' >> ~/.profile"]);
	});

	it("judges code read from standard input as inline code", () => {
		const ww = ctxFor("workspace-write");
		for (const command of ["python3 - <<'EOF'\nprint(1)\nEOF", "node < x.js", "python3 <<<'print(1)'", "cat x.py | python3"]) {
			expect(sh(command, ww).decision, command).toBe(sh("python3 -c 'print(1)'", ww).decision);
			expect(sh(command, ww).decision, command).toBe("ask");
			expect(sh(command, ctxFor("full-access")).decision, command).toBe("allow");
		}
		expect(sh("python3 build.py", ww).decision).toBe("allow");
	});
});
