import { describe, expect, it } from "vitest";
import { DENIED_NETWORK, DENIED_WRITE, DENIED_WRITE_LANDLOCK, sandboxDenials } from "./sandbox-denials.js";

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

describe("sandboxDenials under Landlock", () => {
	const landlock = { provider: "landlock" as const, network: false };

	it("reads EACCES on a write as a write outside the writable places, naming only whole absolute paths", () => {
		expect(sandboxDenials("bash: line 1: ../outside.txt: Permission denied\n", landlock)).toEqual([DENIED_WRITE_LANDLOCK]);
		expect(sandboxDenials("touch: cannot touch '/etc/x': Permission denied\n", landlock)).toEqual([DENIED_WRITE_LANDLOCK, "/etc/x"]);
		expect(sandboxDenials("mkdir: cannot create directory '.warden': Permission denied\n", landlock)).toEqual([DENIED_WRITE_LANDLOCK, ".warden"]);
	});

	it("reads a socket it could not make as the network, only where the network was withheld", () => {
		expect(sandboxDenials("curl: (7) Failed to connect to 127.0.0.1 port 8 after 0 ms: Couldn't connect to server\n", landlock)).toEqual([DENIED_NETWORK]);
		expect(sandboxDenials("curl: (7) Failed to connect to 127.0.0.1 port 8 after 0 ms: Couldn't connect to server\n", { provider: "landlock", network: true })).toEqual([]);
		expect(sandboxDenials("OSError: [Errno 101] Network is unreachable\n", landlock)).toEqual([DENIED_NETWORK]);
	});

	it("keeps bubblewrap's reading for bubblewrap: EROFS is the write sign, a bare EACCES only names its path", () => {
		expect(sandboxDenials("bash: line 1: ../outside.txt: Permission denied\n", { provider: "bwrap" })).toEqual([]);
		expect(sandboxDenials("bash: ../x: Read-only file system\n", { provider: "bwrap" })).toEqual([DENIED_WRITE]);
	});
});
