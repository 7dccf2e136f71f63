/**
 * The Ink screen: finished entries scroll up as static output, the running part stays live below
 * them (cards in progress, the streaming answer, the todo list, an ask), then the prompt and the
 * status line. Written with createElement, so the project needs no JSX step.
 */
import { Box, render, Static, Text, useApp, useInput, useStdout } from "ink";
import { createElement as h, type ReactNode, useEffect, useReducer, useRef, useState, useSyncExternalStore } from "react";
import type { ChatFlags } from "./chat-command.js";
import { runLine } from "./chat-commands.js";
import type { ChatController } from "./chat-controller.js";
import { TODO_MARKS } from "../../tools/todo-write.js";
import type { Entry, PendingAsk, TodoItem } from "./chat-state.js";
import { askKeys, askLines, cardLines, type Line, type Tone, VIEW_KEY } from "./card-lines.js";
import { displayField, displayText } from "./display-line.js";
import { statusText } from "./status-text.js";
import { InputBuffer } from "./input-buffer.js";
import { ARM_AFTER_MS } from "./arm-delay.js";
import type { EarlyPrompt } from "./early-prompt.js";


const COLOR: Readonly<Record<Tone, string | undefined>> = {
	plain: undefined,
	dim: "gray",
	ok: "green",
	error: "red",
	warn: "yellow",
	accent: "cyan",
	added: "green",
	removed: "red",
};

/** NO_COLOR (any value) turns colour off; the marks and +/- of diffs still say what colour said. */
const noColor = () => process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "";

function lineNode(line: Line, key: number | string): ReactNode {
	const color = noColor() ? undefined : COLOR[line.tone];
	return h(Text, { key, wrap: "wrap", ...(color ? { color } : {}) }, line.text);
}

function settled(entry: Entry): boolean {
	// A card stays live until its output is in (the next model request carries it) or its turn ends.
	return entry.kind !== "tool" || entry.card.closed === true;
}

function entryNode(entry: Entry, now: number): ReactNode {
	switch (entry.kind) {
		case "user":
			return h(Box, { key: entry.id, marginTop: 1 }, h(Text, { bold: true, wrap: "wrap" }, `› ${displayText(entry.text)}`));
		case "assistant":
			return h(Box, { key: entry.id, marginTop: 1 }, h(Text, { wrap: "wrap" }, displayText(entry.text)));
		case "notice":
			return h(Box, { key: entry.id, flexDirection: "column" }, lineNode({ text: displayText(entry.text), tone: entry.tone === "info" ? "dim" : entry.tone }, 0));
		case "tool":
			return h(Box, { key: entry.id, flexDirection: "column", marginTop: 1 }, ...cardLines(entry.card, now).map((l, i) => lineNode(l, i)));
	}
}

/** How a todo item is coloured by its status: the one in progress stands out, finished ones recede. */
const ITEM_TONE: Readonly<Record<TodoItem["status"], Tone>> = { pending: "plain", in_progress: "warn", completed: "dim", cancelled: "plain", blocked: "plain" };

function todoNode(todos: readonly TodoItem[]): ReactNode {
	if (todos.length === 0) return null;
	return h(
		Box,
		{ flexDirection: "column", marginTop: 1 },
		lineNode({ text: "todo", tone: "accent" }, "head"),
		...todos.map((t, i) => lineNode({ text: `${TODO_MARKS[t.status]} ${displayField(t.content)}`, tone: ITEM_TONE[t.status] }, i)),
	);
}

function AskPanel(props: { chat: ChatController; ask: PendingAsk; full: boolean }): ReactNode {
	const { chat, ask, full } = props;
	const [armed, setArmed] = useState(false);
	useEffect(() => {
		setArmed(false);
		let immediate: NodeJS.Immediate | undefined;
		// setImmediate runs after the poll phase: input already waiting when the window closes is read (and dropped) first.
		const timer = setTimeout(() => {
			immediate = setImmediate(() => {
				chat.arm(ask);
				setArmed(true);
			});
		}, ARM_AFTER_MS);
		return () => {
			clearTimeout(timer);
			if (immediate) clearImmediate(immediate);
		};
	}, [chat, ask]);
	const keys: Line = armed ? { text: askKeys(ask, full), tone: "accent" } : { text: "…", tone: "dim" };
	return h(Box, { flexDirection: "column", marginTop: 1, borderStyle: "round", paddingX: 1 }, ...[...askLines(ask, full), keys].map((l, i) => lineNode(l, i)));
}

function App(props: { chat: ChatController; flags: ChatFlags; onExit: () => void }): ReactNode {
	const { chat, flags } = props;
	const view = useSyncExternalStore(
		(l) => chat.subscribe(l),
		() => chat.view(),
	);
	const app = useApp();
	const { stdout } = useStdout();
	const input = useRef(new InputBuffer()).current;
	const [, redraw] = useReducer((n: number) => n + 1, 0);
	const [now, setNow] = useState(Date.now());
	const [epoch, setEpoch] = useState(0);
	const lastLength = useRef(view.entries.length);
	// `v` shows the ask's long fields whole; kept per ask, so each new ask starts cut.
	const [wholeAsk, setWholeAsk] = useState<PendingAsk | undefined>(undefined);
	const askFull = view.ask !== undefined && wholeAsk === view.ask;

	// /clear: the static output is wiped and drawn again from the (empty) transcript.
	useEffect(() => {
		if (view.entries.length < lastLength.current) {
			stdout.write("\u001b[2J\u001b[3J\u001b[H");
			setEpoch((e) => e + 1);
		}
		lastLength.current = view.entries.length;
	}, [view.entries.length, stdout]);

	const running = view.entries.some((e) => e.kind === "tool" && e.card.status === "running");
	useEffect(() => {
		if (!running) return;
		const timer = setInterval(() => setNow(Date.now()), 500);
		return () => clearInterval(timer);
	}, [running]);

	const exit = () => {
		app.exit();
		props.onExit();
	};

	const submit = () => {
		const line = input.submit();
		if (line === undefined) return;
		if (chat.asking?.kind === "question") chat.answer(line);
		else void runLine(chat, line, flags).then((r) => r === "exit" && exit());
	};

	useInput((chars, key) => {
		if (key.ctrl && chars === "c") {
			void chat.cancel().then((leave) => leave && exit());
			return;
		}
		if (key.ctrl && chars === "d") {
			if (input.text === "") exit();
			return;
		}
		const ask = chat.asking;
		if (ask && ask.kind !== "question" && chars.toLowerCase() === VIEW_KEY) {
			setWholeAsk((whole) => (whole === ask ? undefined : ask));
			return;
		}
		if (ask && ask.kind !== "question") {
			// Keys before the ask is armed are dropped here, never typed into the prompt either.
			chat.answer(chars, key.escape);
			return;
		}
		if (key.escape) {
			if (ask) chat.answer("", true);
			else chat.interrupt();
			return;
		}
		if (key.tab && key.shift) {
			void chat.cycleMode();
			return;
		}
		if (key.return && key.meta) input.newline();
		else if (key.return) submit();
		else if (key.upArrow) input.up();
		else if (key.downArrow) input.down();
		else if (key.backspace || key.delete) input.backspace();
		else if (key.ctrl && chars === "u") input.clear();
		else if (!key.ctrl && !key.meta && chars !== "") {
			// Typed quickly (or before the terminal was raw, where Enter reads as \n), text and Enter arrive as one chunk.
			const pieces = chars.split(/\r\n?|\n/);
			pieces.forEach((piece, i) => {
				input.insert(piece);
				if (i < pieces.length - 1) submit();
			});
		}
		redraw();
	});

	// Declared after useInput, so this runs once its effect put the terminal in raw mode: the prompt
	// is drawn only when keys reach it (a key before that would be read by the cooked terminal).
	const [listening, setListening] = useState(false);
	useEffect(() => setListening(true), []);

	let firstLive = view.entries.findIndex((e) => !settled(e));
	if (firstLive === -1) firstLive = view.entries.length;
	const done = view.entries.slice(0, firstLive);
	const live = view.entries.slice(firstLive);
	const prompt = !listening || view.busy ? "… " : view.ask?.kind === "question" ? "answer› " : "› ";
	return h(
		Box,
		{ flexDirection: "column" },
		// biome-ignore lint/correctness/noChildrenProp: Ink's Static takes a render function, which createElement's typings only accept as a prop
		h(Static<Entry>, { key: epoch, items: [...done], children: (entry: Entry) => entryNode(entry, now) }),
		...live.map((e) => entryNode(e, now)),
		view.streaming.trim() !== "" ? h(Box, { marginTop: 1 }, h(Text, { wrap: "wrap" }, displayText(view.streaming))) : null,
		todoNode(view.todos),
		view.ask ? h(AskPanel, { chat, ask: view.ask, full: askFull }) : null,
		// What was typed (or pasted) is shown as it will be sent, by the same rule.
		h(Box, { marginTop: 1 }, h(Text, { wrap: "wrap" }, `${prompt}${displayText(input.text)}`), h(Text, { inverse: !noColor() }, noColor() ? "_" : " ")),
		lineNode({ text: displayField(statusText(view.status)), tone: "dim" }, "status"),
	);
}

/** Draws the chat until the person leaves; resolves then. */
export async function runScreen(chat: ChatController, flags: ChatFlags, early?: EarlyPrompt): Promise<void> {
	let leave: () => void = () => undefined;
	const left = new Promise<void>((resolve) => {
		leave = resolve;
	});
	// What was typed at the early prompt is read first, as if typed here.
	early?.handOver();
	const instance = render(h(App, { chat, flags, onExit: () => leave() }), { exitOnCtrlC: false, patchConsole: false });
	// Ctrl-D before the terminal went raw reads as the end of input: the person left all the same.
	const onEnd = () => leave();
	process.stdin.once("end", onEnd);
	await Promise.race([left, instance.waitUntilExit()]);
	process.stdin.off("end", onEnd);
	instance.unmount();
}
