import { describe, expect, it } from "vitest";
import { DENIED_NETWORK, DENIED_WRITE, sandboxDenials } from "./sandbox-denials.js";

describe("sandboxDenials", () => {
	it("reads a write refused by the read-only root", () => {
		expect(sandboxDenials("bash: /etc/x: Read-only file system\n")).toEqual([DENIED_WRITE]);
	});

	it("names the path of a permission refusal", () => {
		expect(sandboxDenials("bash: /root/secret: Permission denied\ntouch: cannot touch '/srv/a b': Permission denied\n")).toEqual(["/root/secret", "/srv/a b"]);
	});

	it("reads the network errors of curl and node", () => {
		expect(sandboxDenials("curl: (6) Could not resolve host: example.com\n")).toEqual([DENIED_NETWORK]);
		expect(sandboxDenials("EAI_AGAIN\n")).toEqual([DENIED_NETWORK]);
		expect(sandboxDenials("connect: Network is unreachable")).toEqual([DENIED_NETWORK]);
	});

	it("finds nothing in ordinary failures", () => {
		expect(sandboxDenials("make: *** No rule to make target 'all'.  Stop.\n")).toEqual([]);
	});
});
