/**
 * A line of a command's output as the screen may draw it. Output is the command's, not ours: an
 * escape sequence in it could move the cursor, recolour the screen or retitle the terminal, so
 * escapes and control characters are dropped; a carriage return (a progress bar redrawing itself)
 * keeps what was written last; a tab is a few spaces.
 */
// CSI … final byte, OSC … BEL/ST, and any other two-byte escape.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]?/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function displayLine(text: string): string {
	const withoutEscapes = text.replace(ESCAPES, "");
	const redrawn = withoutEscapes.replace(/\r+$/, "").split("\r");
	return (redrawn[redrawn.length - 1] ?? "").replace(/\t/g, "    ").replace(CONTROLS, "");
}
