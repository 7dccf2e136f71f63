import { shown, shownBlock } from "./shown.js";

/** A unified diff as text lines, each marked by its first character; never as HTML. */
export function DiffView({ diff }: { diff: string }) {
	const lines = diff.replace(/\n$/, "").split("\n");
	return (
		<pre className="diff">
			{lines.map((line, i) => (
				// biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines never move; where a line stands is what tells it apart
				<span key={i} className={line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : line.startsWith("@@") ? "hunk" : ""}>
					{shown(line)}
					{"\n"}
				</span>
			))}
		</pre>
	);
}

/** Any value as indented JSON text. */
export function JsonView({ value }: { value: unknown }) {
	return <pre className="json">{shownBlock(JSON.stringify(value, null, 2))}</pre>;
}
