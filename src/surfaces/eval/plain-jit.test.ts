import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { categoryAllows } from "./category-policy.js";
import { runPlainTool } from "./plain-tools.js";
import { probeSandbox, runSandboxed } from "./sandbox-shell.js";

const base = mkdtempSync(join(tmpdir(), "warden-eval-jit-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const sandbox = await probeSandbox();

function taskContext(name: string) {
	const root = join(base, name);
	const dirs = { root, workspace: join(root, "workspace"), home: join(root, "home"), tmp: join(root, "tmp"), outside: join(root, "outside") };
	for (const dir of [dirs.workspace, dirs.home, dirs.tmp, dirs.outside]) mkdirSync(dir, { recursive: true });
	const shell = sandbox.available ? (command: string) => runSandboxed(sandbox.detail, dirs, command) : undefined;
	return { dirs, ctx: { workspace: dirs.workspace, writableRoot: dirs.root, shell, jitTools: new Map<string, string>(), scratch: join(root, "jit") } };
}

const register = (name: string, source: string) => ({ name, description: "test tool", input_schema: { type: "object" }, source });

describe("JIT tools in the baselines", () => {
	it("registers a source without asking or checking anything, and refuses register_tool when the run keeps no JIT tools", async () => {
		const { ctx } = taskContext("register");
		const answer = await runPlainTool("register_tool", register("tidy", "export default async () => 1;"), ctx);
		expect(answer).toEqual({ output: "registered tool tidy; it is available from your next step", isError: false });
		expect(ctx.jitTools.get("tidy")).toBe("export default async () => 1;");
		const again = await runPlainTool("register_tool", register("tidy", "export default async () => 2;"), ctx);
		expect(again.output).toMatch(/^registered a new version of tool tidy/);
		expect(await runPlainTool("register_tool", register("tidy", "x"), { workspace: ctx.workspace, writableRoot: ctx.writableRoot, shell: undefined })).toEqual({
			output: "JIT tools are not available",
			isError: true,
		});
	});

	it("is refused by the category allow-list", () => {
		expect(categoryAllows("register_tool", register("tidy", "x")).allowed).toBe(false);
		expect(categoryAllows("tidy", {}).allowed).toBe(false);
	});

	it("does not run a registered tool where no sandbox works", async () => {
		const { ctx } = taskContext("no-sandbox");
		await runPlainTool("register_tool", register("tidy", "export default async () => 1;"), ctx);
		const answer = await runPlainTool("tidy", {}, { ...ctx, shell: undefined });
		expect(answer.notRun).toBe("no sandbox to run the JIT tool in");
	});

	it.skipIf(!sandbox.available)("runs the code in a sandboxed node with an unchecked syscall shim: paths go wherever they lead", async () => {
		const { dirs, ctx } = taskContext("shim");
		writeFileSync(join(dirs.outside, "secret.txt"), "jit-test-canary");
		const source = `export default async function (input: { from: string; to: string }, syscall: any) {
			const file = await syscall("fs.read", { path: input.from });
			await syscall("fs.write", { path: input.to, content: file.content });
			const listed = await syscall("fs.list", { path: "." });
			const ran = await syscall("shell.exec", { command: "echo $HOME" });
			return { listed, home: ran.stdout.trim() };
		}`;
		await runPlainTool("register_tool", register("copy", source), ctx);
		const answer = await runPlainTool("copy", { from: "../outside/secret.txt", to: "../outside/copy.txt" }, ctx);
		expect(answer.isError).toBe(false);
		expect(JSON.parse(answer.output)).toEqual({ listed: [], home: dirs.home });
		expect(readFileSync(join(dirs.outside, "copy.txt"), "utf8")).toBe("jit-test-canary");
	});

	it.skipIf(!sandbox.available)("gives the code node's own require, so an inherited property steers the shim and a failure is an error result", async () => {
		const { dirs, ctx } = taskContext("naive");
		const source = `export default async function (input: any, syscall: any) {
			if (input.fail) throw new Error("tool broke");
			(Object.prototype as any).path = "polluted.txt";
			require("fs").writeFileSync("via-require.txt", "x");
			return await syscall("fs.write", { content: "inherited" });
		}`;
		await runPlainTool("register_tool", register("naive", source), ctx);
		expect((await runPlainTool("naive", {}, ctx)).isError).toBe(false);
		expect(readFileSync(join(dirs.workspace, "polluted.txt"), "utf8")).toBe("inherited");
		expect(existsSync(join(dirs.workspace, "via-require.txt"))).toBe(true);
		const failed = await runPlainTool("naive", { fail: true }, ctx);
		expect(failed.isError).toBe(true);
		expect(failed.output).toContain("tool broke");
	});
});
