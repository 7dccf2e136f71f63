/**
 * Parses a shell command with tree-sitter-bash into the flat list of simple commands it would run:
 * lists, pipelines, subshells, groups, substitutions, control flow and function bodies are walked,
 * wrappers are looked through, and anything whose program cannot be known is marked opaque.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Language, Parser } from "web-tree-sitter";
import { arithmeticCommandRisk, executesIn, testCommandRisk } from "./executing-words.js";
import { normalizeArgs, normalizedText } from "./flag-normalization.js";
import { plainCommands } from "./plain-command.js";
import type { ParsedShell, ShellRedirect, ShellWord, SimpleCommand } from "./shell-types.js";
import { wordOf, wordsOf } from "./shell-words.js";
import { copyTree, type SyntaxNode as Node } from "./syntax-tree.js";
import { basename, type CommandFrame, copyFrame, resolveFrame, type ScriptExpander } from "./wrappers.js";

/** `bash -c "bash -c '…'"` nesting past this depth is treated as opaque. */
const MAX_DEPTH = 8;
/**
 * The walk below recurses once per syntax-tree level, so a few thousand levels of `( ( …`, `$( $( …`
 * or `a && b && …` would overflow the stack. A tree deeper than this is refused unwalked (nested
 * scripts get less, as they are walked inside their parent's walk); no command a person writes comes near.
 */
const MAX_TREE_DEPTH = 256;
const MAX_NESTED_TREE_DEPTH = 64;
const TOO_DEEP = `the command is nested too deeply to check (more than ${MAX_TREE_DEPTH} syntax levels)`;
const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const DUPLICATING = new Set([">&", "<&"]);
const OWNS_ASSIGNMENTS = new Set(["command", "declaration_command", "variable_assignments"]);

interface WalkContext {
	inPipeline: boolean;
	background: boolean;
	inFunction?: string;
	redirects: ShellRedirect[];
}

interface Collected {
	frames: CommandFrame[];
	functions: string[];
	malformed: boolean;
	/** The tree (or a script nested in it) was past its depth limit and was not walked. */
	tooDeep?: boolean;
}

/**
 * Characters the grammar reads as blanks between words but bash does not (bash splits words on
 * spaces and tabs only): in `touch c<CR>echo y` the parser sees three operands where bash runs
 * `touch` on `c<CR>echo` and `y`. What is decided must be what runs, so such a command is refused.
 */
const MISREAD_BLANKS = /[\r\v\f]/;
const MISREAD_BLANK_REASON = "the command holds a carriage return, vertical tab or form feed, which bash reads as part of a word and the parser as a space; send it without";

let bashLanguage: Promise<Language> | undefined;

function loadBash(): Promise<Language> {
	bashLanguage ??= (async () => {
		await Parser.init();
		const require = createRequire(import.meta.url);
		const wasm = join(dirname(require.resolve("tree-sitter-bash/package.json")), "tree-sitter-bash.wasm");
		return Language.load(wasm);
	})();
	return bashLanguage;
}

const HEREDOC_EXPANSIONS = new Set(["simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"]);

/** The text a heredoc feeds to standard input: as written when its delimiter is quoted, else with expansions left dynamic. */
function heredocBody(node: Node): ShellWord {
	const body = node.children.find((c) => c?.type === "heredoc_body");
	const text = body?.text ?? "";
	const quoted = /['"\\]/.test(node.children.find((c) => c?.type === "heredoc_start")?.text ?? "");
	const expands = !quoted && body !== undefined && body !== null && body.namedChildren.some((c) => c !== null && HEREDOC_EXPANSIONS.has(c.type));
	return expands ? { value: text, static: false, scriptText: text } : { value: text, static: true };
}

function toRedirect(node: Node): ShellRedirect | undefined {
	if (node.type === "heredoc_redirect") return { operator: "<<", kind: "heredoc", target: { value: "", static: true }, body: heredocBody(node) };
	if (node.type === "herestring_redirect") {
		const word = node.namedChildren.find((c) => c !== null);
		// A here-string ends with the newline bash adds.
		const body = word ? wordOf(word) : { value: "", static: true };
		return { operator: "<<<", kind: "heredoc", target: { value: "", static: true }, body: { ...body, value: `${body.value}\n` } };
	}
	const destination = node.childForFieldName("destination");
	if (!destination) return undefined;
	const fd = node.childForFieldName("descriptor")?.text;
	const operator = node.children.find((c) => c !== null && !c.isNamed)?.type ?? ">";
	const target = wordOf(destination);
	const duplicate = DUPLICATING.has(operator) && (destination.type === "number" || target.value === "-");
	const kind = duplicate ? "duplicate" : operator === "<" || operator === "<&" ? "read" : "write";
	return fd === undefined ? { operator, kind, target } : { operator, fd, kind, target };
}

/**
 * The redirects one redirect node stands for. The grammar hangs redirects written after a heredoc's
 * delimiter (`cat <<EOF > out`) inside the heredoc node; they are the command's own.
 */
function redirectsOf(node: Node): ShellRedirect[] {
	const own = toRedirect(node);
	const out = own ? [own] : [];
	if (node.type !== "heredoc_redirect") return out;
	for (const child of node.namedChildren) {
		if (child?.type !== "file_redirect") continue;
		const nested = toRedirect(child);
		if (nested) out.push(nested);
	}
	return out;
}

function redirectText(r: ShellRedirect): string {
	if (r.kind === "heredoc" || r.kind === "duplicate") return "";
	return `${r.fd ?? ""}${r.operator} ${r.target.value}`;
}

function toSimpleCommand(frame: CommandFrame): SimpleCommand {
	const first = frame.words[0];
	const args = frame.words.slice(1);
	const program = first ? (first.static ? basename(first.value) : first.value) : "";
	const normalized = normalizeArgs(program, args);
	let text = normalizedText(program, normalized);
	for (const r of frame.redirects) {
		const shown = redirectText(r);
		if (shown !== "") text = text === "" ? shown : `${text} ${shown}`;
	}
	const command: SimpleCommand = {
		program,
		programKnown: first?.static ?? true,
		programPath: first?.value ?? "",
		args,
		argv: args.map((a) => a.value),
		normalized,
		text,
		env: frame.env,
		redirects: frame.redirects,
		wrappers: frame.wrappers,
		launchers: frame.launchers ?? [],
		privileged: frame.privileged,
		argsFromInput: frame.argsFromInput,
		opaque: frame.opaqueReason !== undefined,
		source: frame.source,
		inPipeline: frame.inPipeline,
		background: frame.background,
	};
	if (frame.opaqueReason !== undefined) command.opaqueReason = frame.opaqueReason;
	else if (frame.chdir !== undefined) {
		command.opaque = true;
		command.opaqueReason = `${frame.chdir} runs the program in another directory, so the files it names are not the ones checked`;
	}
	if (frame.inFunction !== undefined) command.inFunction = frame.inFunction;
	return command;
}

/** Frames from `start` on become opaque for `risk`: a word of theirs runs code when it is expanded. */
function markExecuting(frames: CommandFrame[], start: number, risk: string | undefined): void {
	if (risk === undefined) return;
	for (let i = start; i < frames.length; i++) {
		const f = frames[i]!;
		if (f.opaqueReason === undefined) frames[i] = { ...f, opaqueReason: `a word's expansion may run code: ${risk}` };
	}
}

function firstRisk(nodes: readonly Node[]): string | undefined {
	for (const n of nodes) {
		const risk = executesIn(n);
		if (risk) return risk;
	}
	return undefined;
}

export interface ShellParserOptions {
	/** Read plain command lines without the grammar (plain-command.ts). Default true; off only to compare the two readings. */
	plainScan?: boolean;
}

export class ShellParser {
	private constructor(
		private readonly parser: Parser,
		private readonly plainScan: boolean,
	) {}

	/** Loads the bash grammar once per process; parsing is synchronous afterwards. */
	static async create(options: ShellParserOptions = {}): Promise<ShellParser> {
		const language = await loadBash();
		const parser = new Parser();
		parser.setLanguage(language);
		return new ShellParser(parser, options.plainScan ?? true);
	}

	parse(source: string): ParsedShell {
		if (MISREAD_BLANKS.test(source)) return { source, commands: [], functions: [], malformed: true, malformedReason: MISREAD_BLANK_REASON };
		const collected = this.collect(source, 0);
		if (collected.tooDeep) return { source, commands: [], functions: [], malformed: true, malformedReason: TOO_DEEP };
		return {
			source,
			commands: collected.frames.map(toSimpleCommand),
			functions: collected.functions,
			malformed: collected.malformed,
		};
	}

	private collect(source: string, depth: number): Collected {
		const out: Collected = { frames: [], functions: [], malformed: false };
		const plain = this.plainScan ? plainCommands(source) : undefined;
		if (plain) {
			const expand = this.expander(out, depth);
			for (const c of plain) {
				const frame = this.frame(c.words, [], [], source.slice(c.start, c.end), { inPipeline: c.inPipeline, background: false, redirects: [] });
				for (const f of resolveFrame(frame, expand)) out.frames.push(f);
			}
			return out;
		}
		const tree = this.parser.parse(source);
		if (!tree) return { ...out, malformed: true };
		let copied: ReturnType<typeof copyTree>;
		try {
			copied = copyTree(tree, source, depth === 0 ? MAX_TREE_DEPTH : MAX_NESTED_TREE_DEPTH);
		} finally {
			tree.delete();
		}
		if (!copied) return { ...out, malformed: true, tooDeep: true };
		out.malformed = copied.hasError;
		this.walk(copied.root, { inPipeline: false, background: false, redirects: [] }, out, depth);
		if (out.malformed) {
			out.frames = out.frames.map((f) => ({ ...f, opaqueReason: f.opaqueReason ?? "the command does not parse" }));
		}
		return out;
	}

	private expander(out: Collected, depth: number): ScriptExpander {
		return (script, outer, wrapper) => {
			if (depth + 1 >= MAX_DEPTH) return [{ ...outer, opaqueReason: outer.opaqueReason ?? "shell code is nested too deeply" }];
			if (MISREAD_BLANKS.test(script)) return [{ ...outer, opaqueReason: outer.opaqueReason ?? MISREAD_BLANK_REASON }];
			const inner = this.collect(script, depth + 1);
			if (inner.tooDeep) out.tooDeep = true;
			out.functions.push(...inner.functions);
			return inner.frames.map((f) => {
				const merged = copyFrame(f);
				merged.env = [...outer.env, ...f.env];
				merged.redirects = [...outer.redirects, ...f.redirects];
				merged.wrappers = [...outer.wrappers, wrapper, ...f.wrappers];
				merged.launchers = [...(outer.launchers ?? []), outer.words[0]?.value ?? "", ...(f.launchers ?? [])];
				merged.chdir = outer.chdir ?? f.chdir;
				merged.privileged = outer.privileged || f.privileged;
				merged.argsFromInput = outer.argsFromInput || f.argsFromInput;
				merged.source = outer.source;
				merged.inPipeline = outer.inPipeline || f.inPipeline;
				merged.background = outer.background || f.background;
				merged.inFunction = f.inFunction ?? outer.inFunction;
				return merged;
			});
		};
	}

	private walk(node: Node, ctx: WalkContext, out: Collected, depth: number): void {
		switch (node.type) {
			case "command":
				this.command(node, ctx, out, depth);
				return;
			case "declaration_command":
			case "unset_command":
				this.declaration(node, ctx, out, depth);
				return;
			case "redirected_statement": {
				const redirectNodes = node.children.filter((c): c is Node => c !== null && REDIRECTS.has(c.type));
				const own = redirectNodes.flatMap(redirectsOf);
				const body = node.childForFieldName("body");
				const start = out.frames.length;
				if (body) this.walk(body, { ...ctx, redirects: [...ctx.redirects, ...own] }, out, depth);
				else out.frames.push(this.frame([], [], [...ctx.redirects, ...own], node.text, ctx));
				markExecuting(out.frames, start, firstRisk(redirectNodes));
				for (const r of redirectNodes) this.walkNested(r, ctx, out, depth);
				return;
			}
			case "variable_assignment":
			case "variable_assignments":
				// An assignment before a program, or in export/local, belongs to that command.
				if (OWNS_ASSIGNMENTS.has(node.parent?.type ?? "")) this.walkChildren(node, ctx, out, depth);
				else this.assignment(node, ctx, out, depth);
				return;
			case "test_command":
				this.evaluation(node, "[[", testCommandRisk(node), ctx, out, depth);
				return;
			case "c_style_for_statement":
				this.evaluation(node, "((", arithmeticCommandRisk(node), ctx, out, depth);
				return;
			case "compound_statement":
				if (node.child(0)?.type === "((") {
					this.evaluation(node, "((", arithmeticCommandRisk(node), ctx, out, depth);
					return;
				}
				this.walkChildren(node, ctx, out, depth);
				return;
			case "pipeline":
				for (const child of node.namedChildren) {
					if (child) this.walk(child, { ...ctx, inPipeline: true }, out, depth);
				}
				return;
			case "function_definition": {
				const name = node.childForFieldName("name")?.text ?? "";
				out.functions.push(name);
				const body = node.childForFieldName("body");
				if (body) this.walk(body, { ...ctx, inFunction: name }, out, depth);
				return;
			}
			default:
				this.walkChildren(node, ctx, out, depth);
		}
	}

	private walkChildren(node: Node, ctx: WalkContext, out: Collected, depth: number): void {
		const children = node.children;
		for (let i = 0; i < children.length; i++) {
			const child = children[i];
			if (!child?.isNamed) continue;
			const background = children[i + 1]?.type === "&";
			this.walk(child, background ? { ...ctx, background: true } : ctx, out, depth);
		}
	}

	/** Commands inside substitutions run on their own: no inherited pipeline or redirects. */
	private walkNested(node: Node, ctx: WalkContext, out: Collected, depth: number): void {
		const nested: WalkContext = { inPipeline: false, background: false, redirects: [] };
		if (ctx.inFunction !== undefined) nested.inFunction = ctx.inFunction;
		this.walkChildren(node, nested, out, depth);
	}

	private frame(
		words: CommandFrame["words"],
		env: CommandFrame["env"],
		redirects: ShellRedirect[],
		source: string,
		ctx: WalkContext,
	): CommandFrame {
		// Every field written out, in copyFrame's order: one shape for every frame (wrappers.ts).
		return {
			words,
			env,
			redirects,
			wrappers: [],
			launchers: undefined,
			chdir: undefined,
			privileged: false,
			argsFromInput: false,
			opaqueReason: undefined,
			source,
			inPipeline: ctx.inPipeline,
			background: ctx.background,
			inFunction: ctx.inFunction,
		};
	}

	private command(node: Node, ctx: WalkContext, out: Collected, depth: number): void {
		const words: CommandFrame["words"] = [];
		const env: CommandFrame["env"] = [];
		const redirects = [...ctx.redirects];
		const children = node.children;
		for (let i = 0; i < children.length; i++) {
			const child = children[i];
			if (!child) continue;
			const field = node.fieldNameForChild(i);
			if (child.type === "variable_assignment") {
				const value = child.childForFieldName("value");
				env.push({ name: child.childForFieldName("name")?.text ?? "", value: value ? wordOf(value).value : "" });
			} else if (REDIRECTS.has(child.type)) {
				redirects.push(...redirectsOf(child));
			} else if (field === "name" || field === "argument") {
				words.push(...wordsOf(child));
			}
		}
		const frame = this.frame(words, env, redirects, node.text, ctx);
		const start = out.frames.length;
		out.frames.push(...resolveFrame(frame, this.expander(out, depth)));
		markExecuting(out.frames, start, firstRisk(children.filter((c): c is Node => c?.isNamed === true)));
		this.walkNested(node, ctx, out, depth);
	}

	/**
	 * A bare assignment (`PATH=./bin; ls`) runs nothing, but it changes what later commands run: it is
	 * a command of its own with no program and the assignments as its environment.
	 */
	private assignment(node: Node, ctx: WalkContext, out: Collected, depth: number): void {
		const assignments = node.type === "variable_assignment" ? [node] : node.namedChildren.filter((c): c is Node => c?.type === "variable_assignment");
		const env = assignments.map((a) => {
			const value = a.childForFieldName("value");
			return { name: a.childForFieldName("name")?.text ?? "", value: value ? wordOf(value).value : "" };
		});
		const frame = this.frame([], env, [...ctx.redirects], node.text, ctx);
		const risk = executesIn(node);
		out.frames.push(risk === undefined ? frame : { ...frame, opaqueReason: `a word's expansion may run code: ${risk}` });
		this.walkNested(node, ctx, out, depth);
	}

	/** `[[ … ]]`, `(( … ))`: bash evaluates them itself; a frame of their own carries what they may run. */
	private evaluation(node: Node, keyword: string, risk: string | undefined, ctx: WalkContext, out: Collected, depth: number): void {
		const frame = this.frame([{ value: keyword, static: true }], [], [...ctx.redirects], node.text, ctx);
		out.frames.push(risk === undefined ? frame : { ...frame, opaqueReason: `a word's expansion may run code: ${risk}` });
		this.walkChildren(node, ctx, out, depth);
	}

	private declaration(node: Node, ctx: WalkContext, out: Collected, depth: number): void {
		const keyword = node.children.find((c) => c !== null && !c.isNamed)?.text ?? node.type;
		const words: CommandFrame["words"] = [{ value: keyword, static: true }];
		for (const child of node.namedChildren) {
			if (child) words.push(wordOf(child));
		}
		const start = out.frames.length;
		out.frames.push(this.frame(words, [], [...ctx.redirects], node.text, ctx));
		markExecuting(out.frames, start, executesIn(node));
		this.walkNested(node, ctx, out, depth);
	}
}
