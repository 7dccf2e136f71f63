/**
 * Generated text for the display properties of the surfaces: ordinary text mixed with what an
 * attacker reaches for (escape sequences, overwrites, bidi and invisible characters, lone
 * surrogates, the display rule's own escape syntax), so the interesting cases come often.
 */
import fc from "fast-check";

const HOSTILE = fc.constantFrom(
	"\u001b",
	"\u001b[",
	"\u001b]",
	"\u001b_",
	"\u001b^",
	"\u001bX",
	"\u009d",
	"\u{e0041}",
	"x",
	"u",
	"{",
	"\u001b]0;t\u0007",
	"\u001b]52;c;eA==\u0007",
	"\u001bP",
	"\u001b[8m",
	"\u001b[?1049h",
	"\u009b",
	"\b",
	"\r",
	"\n",
	"\t",
	"\u0000",
	"\u007f",
	"\u202e",
	"\u2066",
	"\u200b",
	"\u200d",
	"\ufeff",
	"\u00a0",
	"\ud800",
	"\\",
	"\\x1b",
	"\\u{41}",
	"`",
	"```",
	"👩",
);

export const hostileText = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: fc.oneof(HOSTILE, fc.string({ maxLength: 3 })), maxLength: 30 }));

/** A character no shown text may hold raw (newlines are checked by each property where they matter). */
export const RAW_HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u200c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\u00a0]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;
