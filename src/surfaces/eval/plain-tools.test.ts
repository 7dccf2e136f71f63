import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { categoryAllows } from "./category-policy.js";
import { runPlainTool } from "./plain-tools.js";
import { bwrapArgs, probeSandbox, runSandboxed } from "./sandbox-shell.js";

const base = mkdtempSync(join(tmpdir(), "warden-eval-plain-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function taskDir(name: string) {
	const root = join(base, name);
	const dirs = { root, workspace: join(root, "workspace"), home: join(root, "home"), tmp: join(root, "tmp"), outside: join(root, "outside") };
	for (const dir of [dirs.workspace, dirs.home, dirs.tmp, dirs.outside]) mkdirSync(dir, { recursive: true });
	return dirs;
}

describe("plain tools (the baselines' naive implementations)", () => {
	it("follow paths wherever they point inside the task, links and .. included", async () => {
		const dirs = taskDir("naive");
		writeFileSync(join(dirs.outside, "secret.txt"), "outside-canary");
		symlinkSync(join(dirs.outside, "later.txt"), join(dirs.workspace, "dangling"));
		const ctx = { workspace: dirs.workspace, writableRoot: dirs.root, shell: undefined };
		expect(await runPlainTool("read_file", { path: "../outside/secret.txt" }, ctx)).toEqual({ output: "outside-canary", isError: false });
		expect((await runPlainTool("write_file", { path: "dangling", content: "through the link" }, ctx)).isError).toBe(false);
		expect(readFileSync(join(dirs.outside, "later.txt"), "utf8")).toBe("through the link");
		expect((await runPlainTool("edit_file", { path: "../outside/secret.txt", old: "outside", new: "edited" }, ctx)).isError).toBe(false);
		expect(readFileSync(join(dirs.outside, "secret.txt"), "utf8")).toBe("edited-canary");
	});

	it("use missing arguments as they come, and refuse unknown tools without running anything", async () => {
		const dirs = taskDir("missing");
		const ctx = { workspace: dirs.workspace, writableRoot: dirs.root, shell: undefined };
		expect((await runPlainTool("write_file", { path: "notes.md" }, ctx)).isError).toBe(false);
		expect(readFileSync(join(dirs.workspace, "notes.md"), "utf8")).toBe("undefined");
		expect(await runPlainTool("delete_everything", { path: "." }, ctx)).toEqual({ output: "unknown tool delete_everything", isError: true });
		expect(await runPlainTool("read_file", null, ctx)).toMatchObject({ isError: true, output: expect.stringMatching(/^read_file failed: /) });
		expect(await runPlainTool("shell", { command: "true" }, ctx)).toMatchObject({ isError: true, notRun: "no sandbox to run the command in" });
	});

	it("run an agent call's steps directly with the same tools, nested calls too, up to the depth limit", async () => {
		const dirs = taskDir("agent");
		const ctx = { workspace: dirs.workspace, writableRoot: dirs.root, shell: undefined };
		const write = (path: string) => ({ tool_calls: [{ name: "write_file", arguments: { path, content: "child" } }] });
		const result = await runPlainTool("agent", { task: "t", steps: [write("secrets/a.txt"), { tool_calls: [{ name: "agent", arguments: { task: "u", steps: [write("b.txt")] } }] }, { text: "done" }] }, ctx);
		expect(result.isError).toBe(false);
		expect(result.output).toMatch(/^sub-agent completed:\nwrite_file: wrote 5 bytes/);
		expect(result.output).toContain("done");
		expect(readFileSync(join(dirs.workspace, "secrets/a.txt"), "utf8")).toBe("child");
		expect(readFileSync(join(dirs.workspace, "b.txt"), "utf8")).toBe("child");
		const tooDeep = { task: "t", steps: [{ tool_calls: [{ name: "agent", arguments: { task: "u", steps: [{ tool_calls: [{ name: "agent", arguments: { task: "v", steps: [write("c.txt")] } }] }] } }] }] };
		expect((await runPlainTool("agent", tooDeep, ctx)).output).toContain("agent: sub-agents nest at most 2 deep");
		expect(existsSync(join(dirs.workspace, "c.txt"))).toBe(false);
		expect(await runPlainTool("agent", { task: "t" }, ctx)).toEqual({ output: "agent needs steps to run", isError: true });
		expect(await runPlainTool("agent", { task: "t", steps: [{ tool_calls: [{ name: "shell", arguments: { command: "true" } }] }] }, ctx)).toMatchObject({ notRun: "no sandbox to run the command in" });
	});

	it("send a web_fetch as written, method, body and headers included, and do not follow a redirect", async () => {
		const seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];
		const server = createServer((req, res) => {
			let body = "";
			req.on("data", (chunk: Buffer) => {
				body += chunk.toString("utf8");
			});
			req.on("end", () => {
				seen.push({ method: req.method, url: req.url, headers: req.headers, body });
				if (req.url === "/moved") res.writeHead(302, { location: "/target", connection: "close" }).end();
				else res.writeHead(200, { connection: "close" }).end("pong");
			});
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		try {
			const ctx = { workspace: taskDir("fetch").workspace, writableRoot: base, shell: undefined };
			const posted = await runPlainTool("web_fetch", { url: `${origin}/x?q=1`, method: "POST", body: "canary-body", headers: { "x-token": "canary-header" } }, ctx);
			expect(posted).toEqual({ output: "status: 200\npong", isError: false });
			expect(seen[0]).toMatchObject({ method: "POST", url: "/x?q=1", body: "canary-body", headers: expect.objectContaining({ "x-token": "canary-header" }) });
			expect(await runPlainTool("web_fetch", { url: `${origin}/moved` }, ctx)).toEqual({ output: "status: 302\n", isError: true });
			expect(seen.map((r) => r.url)).toEqual(["/x?q=1", "/moved"]);
		} finally {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it("never write outside the task's own directory (the sandbox's read-only rest)", async () => {
		const dirs = taskDir("confined");
		const elsewhere = mkdtempSync(join(tmpdir(), "warden-eval-elsewhere-"));
		try {
			symlinkSync(elsewhere, join(dirs.workspace, "away"));
			const ctx = { workspace: dirs.workspace, writableRoot: dirs.root, shell: undefined };
			const direct = await runPlainTool("write_file", { path: join(elsewhere, "x.txt"), content: "no" }, ctx);
			expect(direct).toMatchObject({ isError: true, output: expect.stringMatching(/EROFS/) });
			const viaLink = await runPlainTool("write_file", { path: "away/sub/y.txt", content: "no" }, ctx);
			expect(viaLink).toMatchObject({ isError: true, output: expect.stringMatching(/EROFS/) });
			expect(existsSync(join(elsewhere, "x.txt")) || existsSync(join(elsewhere, "sub"))).toBe(false);
		} finally {
			rmSync(elsewhere, { recursive: true, force: true });
		}
	});
});

describe("the category allow-list", () => {
	it("matches literal command prefixes word by word, which is what makes it weak", () => {
		expect(categoryAllows("read_file", { path: "/etc/passwd" }).allowed).toBe(true);
		expect(categoryAllows("write_file", { path: "../x" }).allowed).toBe(true);
		expect(categoryAllows("shell", { command: "echo tidy && rm -rf ~" }).allowed).toBe(true);
		expect(categoryAllows("shell", { command: "git status" }).allowed).toBe(true);
		expect(categoryAllows("shell", { command: "lsblk" }).allowed).toBe(false);
		expect(categoryAllows("shell", { command: "rm -rf build" }).allowed).toBe(false);
		expect(categoryAllows("shell", { command: 5 }).allowed).toBe(false);
		expect(categoryAllows("mcp_call", {}).allowed).toBe(false);
		expect(categoryAllows("web_fetch", { url: "http://127.0.0.1:1/x" }).allowed).toBe(false);
	});
});

const sandbox = await probeSandbox();

describe("the baseline shell sandbox", () => {
	it("builds the documented bubblewrap arguments", () => {
		const args = bwrapArgs({ root: "/r", workspace: "/r/workspace", home: "/r/home", tmp: "/r/tmp" }, "ls");
		const joined = args.join(" ");
		expect(joined).toMatch(/^--ro-bind \/ \/ --dev \/dev --proc \/proc --bind \/r\/tmp \/tmp --bind \/r \/r --unshare-all --share-net --die-with-parent --new-session/);
		expect(joined).toContain("--uid 1000 --gid 1000 --cap-drop ALL --clearenv --setenv HOME /r/home");
		expect(args.slice(-5)).toEqual(["--chdir", "/r/workspace", "bash", "-c", "ls"]);
	});

	it.skipIf(!sandbox.available)("lets a command write only the task's directory, with the task's HOME and a clean environment", async () => {
		const dirs = taskDir("sandboxed");
		const elsewhere = mkdtempSync(join(tmpdir(), "warden-eval-elsewhere-"));
		// Outside the task and visible in the sandbox, so only the read-only mount can stop the write.
		const rootProbe = `/warden-eval-probe-${process.pid}`;
		try {
			const outcome = await runSandboxed(
				sandbox.detail,
				dirs,
				`touch made-here; touch ~/in-home; touch ${elsewhere}/escaped; touch ${rootProbe}; echo "home=$HOME"; echo "vars=$(env | grep -c -v -E '^(HOME|PATH|PWD|SHLVL|_)=')"`,
			);
			expect(outcome.stdout).toContain(`home=${dirs.home}`);
			expect(outcome.stdout).toContain("vars=0");
			expect(outcome.stderr).toContain(`touch: cannot touch '${rootProbe}': Read-only file system`);
			expect(existsSync(join(dirs.workspace, "made-here"))).toBe(true);
			expect(existsSync(join(dirs.home, "in-home"))).toBe(true);
			expect(existsSync(join(elsewhere, "escaped"))).toBe(false);
			expect(existsSync(rootProbe)).toBe(false);
		} finally {
			rmSync(elsewhere, { recursive: true, force: true });
			rmSync(rootProbe, { force: true });
		}
	});

	it.skipIf(!sandbox.available)("kills a command that outlives its timeout", async () => {
		const dirs = taskDir("timeout");
		const started = Date.now();
		const outcome = await runSandboxed(sandbox.detail, dirs, "sleep 30", 300);
		expect(outcome.timedOut).toBe(true);
		expect(Date.now() - started).toBeLessThan(5_000);
	});
});
