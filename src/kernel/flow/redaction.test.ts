import { describe, expect, it } from "vitest";
import { CIRCULAR, createRedactor } from "./redaction.js";
import { REDACTION_MASK } from "./redaction-types.js";

const M = REDACTION_MASK;

/** A redactor that ignores the real environment. */
function redactor(env: NodeJS.ProcessEnv = {}) {
	return createRedactor({ env });
}

// Planted secrets, assembled so that no literal key sits in the source.
const openai = ["sk-", "abcDEF1234567890ghijKLMNopqr"].join("");
const openaiProject = ["sk-proj-", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"].join("");
const anthropic = ["sk-ant-api03-", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-_AbCdEf"].join("");
const githubClassic = ["ghp_", "a".repeat(18), "B1c2D3e4F5g6h7I8j9K0"].join("");
const githubOauth = ["gho_", "0123456789abcdefghijABCDEFGHIJ0123"].join("");
const githubServer = ["ghs_", "Q".repeat(36)].join("");
const githubPat = ["github_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"].join("");
const awsKeyId = ["AKIA", "IOSFODNN7EXAMPLE"].join("");
const awsSecret = ["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"].join("");
const slack = ["xoxb-", "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"].join("");
const google = ["AIza", "SyD-1234567890abcdefghijklmnopqrstu"].join("");
const stripe = ["sk_live_", "4eC39HqLyjWDarjtT1zdp7dc"].join("");
const jwt = [
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
	"eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
	"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
].join(".");
const pem = [
	"-----BEGIN RSA PRIVATE KEY-----",
	"MIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aozN3tihPmljnnudb9G3HECdnH",
	"lWu2/a1gB9JW5TBQ+AVpum9Okx7KfqkfBKL9mcHgSL0yWMdjMfNOqNtrQqKlN4kE",
	"-----END RSA PRIVATE KEY-----",
].join("\n");

describe("redactText: provider key shapes", () => {
	const cases: [string, string][] = [
		["OpenAI", openai],
		["OpenAI project", openaiProject],
		["Anthropic", anthropic],
		["GitHub classic", githubClassic],
		["GitHub OAuth", githubOauth],
		["GitHub server", githubServer],
		["GitHub fine-grained", githubPat],
		["AWS access key id", awsKeyId],
		["Slack", slack],
		["Google", google],
		["Stripe", stripe],
		["JWT", jwt],
	];
	for (const [name, secret] of cases) {
		it(`masks a ${name} key in the middle of text`, () => {
			const out = redactor().redactText(`before ${secret} after`);
			expect(out).toBe(`before ${M} after`);
		});
	}

	it("masks a key inside JSON and quotes", () => {
		expect(redactor().redactText(`{"headers":{"x":"${openaiProject}"}}`)).toBe(`{"headers":{"x":"${M}"}}`);
	});
});

describe("redactText: structured secrets", () => {
	it("masks a whole PEM private key block", () => {
		const out = redactor().redactText(`key file:\n${pem}\nend of file`);
		expect(out).toBe(`key file:\n${M}\nend of file`);
	});

	it("masks a truncated PEM block to the end of the text", () => {
		const out = redactor().redactText(`cat id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA`);
		expect(out).toBe(`cat id_ed25519\n${M}`);
	});

	it("leaves public keys and certificates alone", () => {
		const cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
		expect(redactor().redactText(cert)).toBe(cert);
	});

	it("masks Authorization headers, keeping the scheme", () => {
		const r = redactor();
		expect(r.redactText("Authorization: Bearer abc.def-123_xyz")).toBe(`Authorization: Bearer ${M}`);
		expect(r.redactText("authorization: Basic dXNlcjpwYXNzd29yZA==")).toBe(`authorization: Basic ${M}`);
		expect(r.redactText(`curl -H "Authorization: token ${githubServer}" x`)).toBe(
			`curl -H "Authorization: token ${M}" x`,
		);
	});

	it("masks a bare Bearer token but not the word in prose", () => {
		const r = redactor();
		expect(r.redactText("sent Bearer 9f8e7d6c5b4a3 upstream")).toBe(`sent Bearer ${M} upstream`);
		expect(r.redactText("Bearer authentication is described in RFC 6750")).toBe(
			"Bearer authentication is described in RFC 6750",
		);
	});

	it("masks the AWS secret access key assignment", () => {
		expect(redactor().redactText(`aws_secret_access_key = ${awsSecret}\nregion = eu-west-1`)).toBe(
			`aws_secret_access_key = ${M}\nregion = eu-west-1`,
		);
	});

	it("masks a password in a URL, keeping the user and host", () => {
		expect(redactor().redactText("postgres://warden:s3cr3t-pw@db.local:5432/app")).toBe(
			`postgres://warden:${M}@db.local:5432/app`,
		);
	});
});

describe("redactText: assignments", () => {
	it("masks the value of password/secret/token/api_key assignments only", () => {
		const r = redactor();
		expect(r.redactText("password=hunter2")).toBe(`password=${M}`);
		expect(r.redactText("DB_PASSWORD='correct horse'")).toBe(`DB_PASSWORD='${M}'`);
		expect(r.redactText("export API_KEY=abc123xyz")).toBe(`export API_KEY=${M}`);
		expect(r.redactText('{"client_secret": "s3cr3t", "name": "app"}')).toBe(`{"client_secret": "${M}", "name": "app"}`);
		expect(r.redactText("token: 0a1b2c3d\nuser: ada")).toBe(`token: ${M}\nuser: ada`);
		expect(r.redactText("mysql --password=pa55word -u root")).toBe(`mysql --password=${M} -u root`);
	});

	it("does not let an earlier assignment hide a secret one in a URL", () => {
		expect(redactor().redactText("url=https://api.example.com/v1?user=ada&token=abc123&page=2")).toBe(
			`url=https://api.example.com/v1?user=ada&token=${M}&page=2`,
		);
	});

	it("leaves look-alikes that are not secrets", () => {
		const r = redactor();
		const untouched = [
			"max_tokens: 4096",
			"password: string",
			"const token = getToken();",
			"if token == expected:",
			"password = config.password",
			"keyboard=us",
			["api_key=$", "{API_KEY}"].join(""),
			"secret: true",
		];
		for (const text of untouched) expect(r.redactText(text)).toBe(text);
	});
});

describe("redactText: known values", () => {
	it("masks values of secret-named environment variables wherever they appear", () => {
		const r = redactor({
			MY_SERVICE_TOKEN: "tok-unusual-value-42",
			DB_PASSWD: "p@ss-word",
			EDITOR: "vim-editor-xyz",
		});
		expect(r.redactText("connecting with tok-unusual-value-42 and p@ss-word as vim-editor-xyz")).toBe(
			`connecting with ${M} and ${M} as vim-editor-xyz`,
		);
	});

	it("ignores short env values, which would mask ordinary words", () => {
		const r = redactor({ KEYMAP: "us", SOME_TOKEN: "abc" });
		expect(r.redactText("us abc keymap")).toBe("us abc keymap");
	});

	it("masks values added with addSecret, longest first", () => {
		const r = redactor();
		r.addSecret("plain-words-secret");
		r.addSecret("plain-words-secret-extended");
		r.addSecret("short");
		expect(r.redactText("a plain-words-secret-extended b plain-words-secret c short")).toBe(`a ${M} b ${M} c short`);
	});

	it("names the exact values it knows that a text holds, not the shapes it masks", () => {
		const r = redactor({ DEPLOY_TOKEN: "tok-from-the-env" });
		r.addSecret("7Q-ALPHA-991");
		r.addSecret("never-in-the-text");
		expect(r.knownIn(`the launch code is 7Q-ALPHA-991, the token tok-from-the-env, a key sk_live_${"x".repeat(24)}`)).toEqual(["tok-from-the-env", "7Q-ALPHA-991"]);
		expect(r.knownIn("nothing here")).toEqual([]);
	});

	it("masks a value added with a trailing newline as read from a file", () => {
		const r = redactor();
		r.addSecret("file-held-secret\n");
		expect(r.redactText("value is file-held-secret.")).toBe(`value is ${M}.`);
	});

	it("applies extra patterns, with or without the g flag", () => {
		const r = createRedactor({ env: {}, extraPatterns: [/INTERNAL-\d{4}/] });
		expect(r.redactText("ids INTERNAL-1234 and INTERNAL-5678")).toBe(`ids ${M} and ${M}`);
	});

	it("reads process.env when no env is given", () => {
		const name = "WARDEN_TEST_REDACTION_SECRET";
		process.env[name] = "from-process-env-123";
		try {
			expect(createRedactor().redactText("x from-process-env-123 y")).toBe(`x ${M} y`);
		} finally {
			delete process.env[name];
		}
	});
});

describe("redactText: ordinary text", () => {
	it("leaves ordinary prose, code and output untouched", () => {
		const r = redactor();
		const samples = [
			"The quick brown fox jumps over the lazy dog.",
			"Wrote 3 files: notes/a.md, notes/b.md, README.md (412 bytes).",
			"$ ls -la\ntotal 8\ndrwxr-xr-x 2 root root 4096 Jan 1 00:00 .",
			"function add(a: number, b: number): number {\n\treturn a + b;\n}",
			"https://example.com/docs/getting-started?page=2#install",
			"commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
			"task-runner-has-many-dashed-words-in-its-name",
			"PWD=/work/main HOME=/root",
			"sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		];
		for (const text of samples) expect(r.redactText(text)).toBe(text);
	});

	it("is idempotent", () => {
		const r = redactor();
		const once = r.redactText(`password=hunter2 ${openai} Authorization: Bearer abcdef123456 "token": "x1y2z3"`);
		expect(r.redactText(once)).toBe(once);
	});
});

describe("redact: JSON-like values", () => {
	it("redacts every string at any depth and keeps other values", () => {
		const r = redactor();
		const input = {
			tool: "shell",
			exit: 0,
			ok: true,
			none: null,
			args: {
				command: `curl -H "Authorization: Bearer ${jwt}" https://x`,
				env: [`KEY=${githubPat}`, 3, false],
			},
			nested: [{ deeper: [{ text: `key ${anthropic}` }] }],
		};
		expect(r.redact(input)).toEqual({
			tool: "shell",
			exit: 0,
			ok: true,
			none: null,
			args: {
				command: `curl -H "Authorization: Bearer ${M}" https://x`,
				env: [`KEY=${M}`, 3, false],
			},
			nested: [{ deeper: [{ text: `key ${M}` }] }],
		});
	});

	it("masks whole strings under secret-named keys, keeping the keys", () => {
		const r = redactor();
		expect(
			r.redact({
				password: "hunter2",
				apiKey: "plainvalue",
				headers: { Authorization: "Basic Zm9vOmJhcg==", Cookie: "sid=1" },
				max_tokens: 5,
			}),
		).toEqual({
			password: M,
			apiKey: M,
			headers: { Authorization: M, Cookie: M },
			max_tokens: 5,
		});
	});

	it("does not modify the input", () => {
		const r = redactor();
		const input = { list: [`x ${openai}`], inner: { password: "hunter2" } };
		const snapshot = structuredClone(input);
		const out = r.redact(input);
		expect(input).toEqual(snapshot);
		expect(out).not.toBe(input);
		expect(out.list).not.toBe(input.list);
	});

	it("hands back what holds no secret as it is, and copies only the path to what changed", () => {
		const r = redactor();
		const clean = { tool: "read_file", args: { path: "src/notes.txt" }, list: ["a", 1, null] };
		expect(r.redact(clean)).toBe(clean);
		const input = { kept: { path: "src/a.ts" }, list: ["plain", `x ${openai}`], inner: { kept: [1, 2], password: "hunter2" } };
		const snapshot = structuredClone(input);
		const out = r.redact(input);
		expect(input).toEqual(snapshot);
		expect(out).toEqual({ kept: { path: "src/a.ts" }, list: ["plain", `x ${M}`], inner: { kept: [1, 2], password: M } });
		expect(out.kept).toBe(input.kept);
		expect(out.inner.kept).toBe(input.inner.kept);
		expect(out.list).not.toBe(input.list);
	});

	it("writes the same JSON as a full copy for what a copy changes without a secret", () => {
		const r = redactor();
		class Point {
			constructor(
				readonly x: number,
				readonly y: number,
			) {}
		}
		const point = new Point(1, 2);
		const out = r.redact({ point, when: new Date(0), list: [point] });
		expect(Object.getPrototypeOf(out.point)).toBe(Object.prototype);
		expect(JSON.stringify(out)).toBe('{"point":{"x":1,"y":2},"when":"1970-01-01T00:00:00.000Z","list":[{"x":1,"y":2}]}');
		// An own `__proto__` key (JSON.parse makes one) is dropped by the copy's assignment, as it always was.
		const parsed = JSON.parse('{"a":"b","__proto__":"c"}') as Record<string, unknown>;
		expect(JSON.stringify(r.redact(parsed))).toBe('{"a":"b"}');
		const holes = new Array<number>(3);
		holes[0] = 1;
		holes[2] = 3;
		expect(r.redact(holes)).toBe(holes);
	});

	it("replaces a cycle with [Circular] instead of throwing", () => {
		const r = redactor();
		const node: Record<string, unknown> = { name: `n ${openai}` };
		node.self = node;
		node.children = [node];
		expect(r.redact(node)).toEqual({
			name: `n ${M}`,
			self: CIRCULAR,
			children: [CIRCULAR],
		});
	});

	it("copies an object seen twice without calling it a cycle", () => {
		const r = redactor();
		const shared = { token: "abc123456" };
		expect(r.redact({ a: shared, b: shared })).toEqual({
			a: { token: M },
			b: { token: M },
		});
	});

	it("redacts plain strings and passes scalars through", () => {
		const r = redactor();
		expect(r.redact(`k=${stripe}`)).toBe(`k=${M}`);
		expect(r.redact(42)).toBe(42);
		expect(r.redact(null)).toBeNull();
		expect(r.redact(undefined)).toBeUndefined();
	});

	it("masks addSecret values inside nested objects", () => {
		const r = redactor();
		r.addSecret("runtime-read-secret-value");
		expect(r.redact({ out: { stdout: "line: runtime-read-secret-value\n" } })).toEqual({
			out: { stdout: `line: ${M}\n` },
		});
	});
});

describe("redactText: cost", () => {
	it("stays fast on long adversarial inputs (no quadratic backtracking)", () => {
		const r = redactor();
		const inputs = [
			"sk-".repeat(70_000),
			"a-".repeat(100_000),
			"a=".repeat(100_000),
			"token:".repeat(35_000),
			"http://a:".repeat(25_000),
			"Bearer ".repeat(30_000),
			"-----BEGIN PRIVATE KEY-----".repeat(8_000),
			"x".repeat(200_000),
		];
		for (const text of inputs) {
			const started = performance.now();
			r.redactText(text);
			expect(performance.now() - started).toBeLessThan(1500);
		}
	});
});

describe("a redactor that remembers its answers", () => {
	const long = (secret: string) => `${"ordinary line of output\n".repeat(20)}token=${secret}\n`;

	it("answers the same text the same way the second time", () => {
		const r = createRedactor({ env: {} });
		const text = long("hunter2hunter2");
		const first = r.redactText(text);
		expect(first).not.toContain("hunter2hunter2");
		expect(r.redactText(text)).toBe(first);
	});

	it("forgets what it remembered when a secret is added, so the new secret is masked in text it saw before", () => {
		const r = createRedactor({ env: {} });
		const text = `${"ordinary line of output\n".repeat(20)}the value is s3cr3t-value-42\n`;
		expect(r.redactText(text)).toContain("s3cr3t-value-42");
		r.addSecret("s3cr3t-value-42");
		expect(r.redactText(text)).not.toContain("s3cr3t-value-42");
	});

	it("answers short texts from memory the same as afresh", () => {
		const r = createRedactor({ env: {} });
		for (const text of ["token=abc123def", "read_file", "sk-ant-abcdefghijklmnopqrstuvwxyz0123", "workspace-write"]) {
			const first = r.redactText(text);
			expect(r.redactText(text), text).toBe(first);
			expect(createRedactor({ env: {} }).redactText(text), text).toBe(first);
		}
		expect(r.redactText("token=abc123def")).not.toContain("abc123def");
	});

	it("keeps masking every text past its memory's size", () => {
		const r = createRedactor({ env: {} });
		for (let i = 0; i < 200; i++) {
			const text = `${"x".repeat(8000)} ${i} password=pw-${i}-long-enough\n`;
			expect(r.redactText(text), `text ${i}`).not.toContain(`pw-${i}-long-enough`);
		}
	});
});
