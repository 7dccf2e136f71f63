import { describe, expect, it } from "vitest";
import { awkProgramRisk } from "./awk-program.js";

describe("awkProgramRisk", () => {
	it.each(["{print $1}", 'BEGIN {print "hello"}', "/pattern/ {print}", "{ print*2 }", "$1 > 5 { print $1 }", "{ if ($1 > 5) print }", "NR==1 || NR==3", "{ s += $2 } END { print s }"])(
		"%j only prints",
		(program) => {
			expect(awkProgramRisk(program)).toBeUndefined();
		},
	);

	it.each([
		['BEGIN {system("rm -rf /")}', "system"],
		['{system("touch file")}', "system"],
		['BEGIN { system ( "ls" ) }', "system"],
		['BEGIN { fn = "system"; @fn("touch /tmp/pwned") }', "system"],
		['BEGIN { f = "sys" "tem"; @f("touch x") }', "indirect"],
		['{print > "output.txt"}', "redirects"],
		['{printf "%s\\n", $0 > "file.txt"}', "redirects"],
		['{print >> "append.txt"}', "redirects"],
		["{ print > output }", "redirects"],
		['{ print>"output" }', "redirects"],
		['BEGIN { print(1 > "0") }', "redirects"],
		['BEGIN { print /x; print y > "out";/ }', "redirects"],
		['BEGIN { print x / 2 > "out" }', "redirects"],
		['BEGIN { # print > "out"\nprint }', "redirects"],
		['{print | "sort"}', "pipes"],
		['{printf "%s\\n", $0 | "wc -l"}', "pipes"],
		['BEGIN { print("x")|"cat > output" }', "pipes"],
		['BEGIN { "date" |& getline }', "pipes"],
		['BEGIN {getline < "date"}', "getline"],
		["{ getline }", "getline"],
		['BEGIN {close("file")}', "close"],
		["{close(cmd)}", "close"],
		['@include "library.awk"', "directive"],
		['@load "ext"', "directive"],
	])("%j is refused (%s)", (program, reason) => {
		expect(awkProgramRisk(program)).toContain(reason);
	});
});
