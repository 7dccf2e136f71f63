/** A word-level glob where `*` matches any run of characters (including `/`) and `?` one character. */

const cache = new Map<string, RegExp>();

function compile(glob: string): RegExp {
	let source = "";
	for (const c of glob) {
		if (c === "*") source += "[\\s\\S]*";
		else if (c === "?") source += "[\\s\\S]";
		else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
	}
	return new RegExp(`^${source}$`);
}

export function wordGlob(glob: string, value: string): boolean {
	if (!glob.includes("*") && !glob.includes("?")) return glob === value;
	let re = cache.get(glob);
	if (!re) {
		re = compile(glob);
		if (cache.size > 1000) cache.clear();
		cache.set(glob, re);
	}
	return re.test(value);
}
