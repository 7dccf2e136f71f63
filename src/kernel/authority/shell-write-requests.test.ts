import { describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import { HOME, symlinkResolver, WORKSPACE } from "../admission/test-support/policy-fixtures.js";
import { Authority } from "./authority.js";
import { CapabilityDeniedError } from "./authority-errors.js";
import { type GrantSpec, issueGrant } from "./capability.js";
import { shellWriteRequests } from "./shell-write-requests.js";
import { taskCeiling } from "./task-ceiling.js";

const shell = await ShellParser.create();
const scope = { workspace: WORKSPACE, home: HOME };
const grants = (...specs: GrantSpec[]) => specs.map((s, i) => issueGrant(s, "host", "session:t", `g${i + 1}`));
const plain = { approved: false };
const requests = (command: string, s: Parameters<typeof shellWriteRequests>[1] = scope) =>
	shellWriteRequests(shell.parse(command), s).map((r) => `${r.right} ${r.resource}`);

describe("fs requests of a shell command", () => {
	it("asks write for each file it visibly writes in the workspace, delete for each it removes", () => {
		expect(requests("echo x > out.txt && cp a build/b && rm old.txt")).toEqual(["write fs:out.txt", "write fs:build/b", "delete fs:old.txt"]);
		expect(requests("mv a b")).toEqual(["write fs:b", "delete fs:a"]);
	});

	it("names nothing for reads, sinks, targets outside the workspace or only known at run time", () => {
		expect(requests("cat a | grep b > /dev/null 2>&1")).toEqual([]);
		expect(requests("echo x > ../outside/f; echo y >> ~/.bashrc")).toEqual([]);
		expect(requests('echo x > "$F"')).toEqual([]);
	});

	it("names the real target, as the fs primitives do", () => {
		const links = symlinkResolver({ [`${WORKSPACE}/docs-link`]: `${WORKSPACE}/docs` });
		expect(requests("echo x > docs-link/new.md", { ...scope, resolvePath: links })).toEqual(["write fs:docs/new.md"]);
	});

	it("lets a grant set without write on a path refuse the command at the primitive", () => {
		const a = new Authority({ grants: grants({ resource: "shell:*", rights: ["exec"] }, { resource: "fs:src/**", rights: ["write"] }), shell });
		expect(() => a.admit(a.shellRequests("echo x > src/a.ts", scope), plain)).not.toThrow();
		expect(() => a.admit(a.shellRequests("echo x > .env", scope), plain)).toThrow(CapabilityDeniedError);
		// Without the workspace's scope only the shell: requests are made, as before.
		expect(() => a.admit(a.shellRequests("echo x > .env"), plain)).not.toThrow();
	});

	it("lets the task ceiling refuse it too", () => {
		const ceiling = taskCeiling({ exclude: [{ resource: "fs:secrets/**", rights: ["write"] }] });
		const a = new Authority({ grants: grants({ resource: "shell:*", rights: ["exec"] }, { resource: "fs:**", rights: ["write"] }), ceiling, shell });
		let err: unknown;
		try {
			a.admit(a.shellRequests("cat notes | tee secrets/k", scope), plain);
		} catch (e) {
			err = e;
		}
		expect(err).toBeInstanceOf(CapabilityDeniedError);
		expect((err as CapabilityDeniedError).reason).toBe("ceiling");
	});
});
