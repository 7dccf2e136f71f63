import { describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import { fsResource, humanResource, llmResource, netResource, resourceKind, shellRequests } from "./resource.js";

const parser = await ShellParser.create();

describe("canonical resources", () => {
	it("names files by their workspace-relative path", () => {
		expect(fsResource("src/a.ts")).toBe("fs:src/a.ts");
		expect(resourceKind("fs:src/a.ts")).toBe("fs");
		expect(resourceKind("git:x")).toBeUndefined();
	});

	it("gives one exec request per sub-command, wrappers looked through and flags normalized", () => {
		expect(shellRequests(parser.parse("env nice /bin/rm -fr build && ls")).map((r) => r.resource)).toEqual(["shell:rm -f -r build", "shell:ls"]);
		expect(shellRequests(parser.parse("cat notes.md | grep milk"))).toEqual([
			{ resource: "shell:cat notes.md", right: "exec", readOnlyCommand: true },
			{ resource: "shell:grep milk", right: "exec", readOnlyCommand: true },
		]);
		expect(shellRequests(parser.parse("rm x"))[0]?.readOnlyCommand).toBe(false);
		// An opaque program is never counted as read-only.
		expect(shellRequests(parser.parse("eval \"$X\""))[0]?.readOnlyCommand).toBe(false);
	});

	it("counts a command read-only for a grant only when its program is the system's, given an identity scope", () => {
		const identity = { workspace: "/ws", resolveProgram: (name: string) => (name === "ls" ? "/usr/bin/ls" : undefined) };
		const readOnly = (command: string) => shellRequests(parser.parse(command), identity).map((r) => r.readOnlyCommand);
		expect(readOnly("ls")).toEqual([true]);
		expect(readOnly("./ls")).toEqual([false]);
		expect(readOnly("/tmp/x/cat notes.md")).toEqual([false]);
		expect(readOnly("ls() { :; }; ls")).toEqual([true, false]);
	});

	it("names an origin by scheme, lower-cased host and explicit port", () => {
		expect(netResource("https://API.Example.com/v1/x?q=1")).toBe("net:https://api.example.com:443");
		expect(netResource("http://user:pw@localhost:8080/")).toBe("net:http://localhost:8080");
		expect(() => netResource("not a url")).toThrow(/is not a URL/);
		expect(llmResource("default")).toBe("llm:default");
		expect(humanResource("terminal")).toBe("human:terminal");
	});
});
