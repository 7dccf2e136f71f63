import { beforeAll, describe, expect, it } from "vitest";
import { ShellParser } from "./shell-parser.js";
import { WRITE_TARGET_TABLE } from "./write-target-table.js";
import { writeTargets } from "./write-targets.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

/** Each target as `via kind path`, a dynamic path marked with `?`. */
function targets(source: string): string[] {
	return parser.parse(source).commands.flatMap((c) => writeTargets(c).map((t) => `${t.via} ${t.kind} ${t.path.static ? "" : "?"}${t.path.value}`));
}

describe("redirections", () => {
	it.each([
		["echo x > out.txt", ["> write out.txt"]],
		["echo x >> log", [">> append log"]],
		["echo x >| forced", [">| write forced"]],
		["make &> build.log", ["&> write build.log"]],
		["make &>> build.log", ["&>> append build.log"]],
		["make 2> err.txt", ["2> write err.txt"]],
		["make 2>> err.txt", ["2>> append err.txt"]],
		["echo x > ../../outside/f", ["> write ../../outside/f"]],
		['echo x > "$F"', ["> write ?$F"]],
		["cat <<EOF > out\nx\nEOF", ["> write out"]],
		["{ echo a; echo b; } > both", ["> write both", "> write both"]],
		["time -o t.txt ls", ["> write t.txt"]],
	])("%s", (source, expected) => {
		expect(targets(source)).toEqual(expected);
	});

	it.each([
		["echo x > /dev/null"],
		["make 2>&1"],
		["make >&2"],
		["echo x > /dev/stderr"],
		["cat < in.txt"],
		["echo x > /dev/fd/3"],
		["tee >(wc -l)"],
	])("%s writes no file", (source) => {
		expect(targets(source)).toEqual([]);
	});
});

/** One case per row of WRITE_TARGET_TABLE (and the test below checks that every row has one). */
const ROWS: Record<string, [source: string, expected: string[]][]> = {
	tee: [
		["cat notes | tee ../outside/f", ["tee write ../outside/f"]],
		["cat notes | tee -a log other", ["tee -a append log", "tee -a append other"]],
	],
	cp: [
		["cp a b", ["cp destination write b"]],
		["cp -r src /tmp/../outside", ["cp destination write /tmp/../outside"]],
		["cp -t /etc a b", ["cp -t write /etc"]],
		["cp --target-directory=out a", ["cp -t write out"]],
		["cp --suffix .bak a b", ["cp destination write b"]],
		["cp a", []],
	],
	mv: [
		["mv a b", ["mv destination write b", "mv source delete a"]],
		["mv -t dir a b", ["mv -t write dir", "mv source delete a", "mv source delete b"]],
	],
	install: [
		["install -m 755 tool ~/bin/tool", ["install destination write ~/bin/tool"]],
		["install -d a b", ["install -d create-dir a", "install -d create-dir b"]],
	],
	ln: [
		["ln -s target link", ["ln destination write link"]],
		["ln -s /opt/x/tool", ["ln destination write tool"]],
	],
	rsync: [
		["rsync -a --exclude .git src/ backup/", ["rsync destination write backup/"]],
		["rsync .env host.example:/srv/x", []],
	],
	dd: [["dd if=/dev/zero of=disk.img bs=1M count=1", ["dd of= write disk.img"]]],
	sed: [
		["sed -i s/a/b/ f.txt", ["sed -i write f.txt"]],
		["sed -i.bak -e s/a/b/ f.txt g.txt", ["sed -i write f.txt", "sed -i write g.txt"]],
		["sed --in-place=.orig s/a/b/ f.txt", ["sed -i write f.txt"]],
		["sed -n p f.txt", []],
	],
	perl: [
		["perl -pi -e s/a/b/ f.txt", ["perl -i write f.txt"]],
		["perl -i.bak -pe s/a/b/ f.txt", ["perl -i write f.txt"]],
		["perl -ne print f.txt", []],
	],
	sort: [
		["sort -o sorted.txt in.txt", ["sort -o write sorted.txt"]],
		["sort -k 2 --output=out in", ["sort -o write out"]],
		["sort in.txt", []],
	],
	git: [
		["git diff --output=../p.diff", ["git diff --output write ../p.diff"]],
		["git -C sub log --output out.txt", ["git log --output write sub/out.txt"]],
		["git config --global core.hooksPath /tmp/h", ["git config --global write ~/.gitconfig"]],
		["git config set --global alias.x '!sh'", ["git config --global write ~/.gitconfig"]],
		["git config --system core.pager less", ["git config --system write /etc/gitconfig"]],
		["git config --file ../cfg a.b c", ["git config --file write ../cfg"]],
		["git config --global user.name", []],
		["git config --global --list", []],
		["git config user.name me", []],
		["git format-patch -o ../patches HEAD~1", ["git format-patch -o create-dir ../patches"]],
		["git archive -o ../a.tar HEAD", ["git archive -o write ../a.tar"]],
		["git clone https://example.com/r.git", ["git clone create-dir r"]],
		["git clone https://example.com/r.git /tmp/r", ["git clone create-dir /tmp/r"]],
		["git worktree add ../wt", ["git worktree add create-dir ../wt"]],
		["git bundle create ../b.bundle HEAD", ["git bundle create write ../b.bundle"]],
		["git status", []],
		["git commit -m 'fix the tests'", []],
	],
	touch: [["touch -d yesterday a b", ["touch write a", "touch write b"]]],
	mkdir: [["mkdir -p -m 700 a/b", ["mkdir create-dir a/b"]]],
	rm: [["rm -rf build ~/x", ["rm delete build", "rm delete ~/x"]]],
	rmdir: [["rmdir empty", ["rmdir delete empty"]]],
	unlink: [["unlink f", ["unlink delete f"]]],
	shred: [
		["shred -n 3 f", ["shred write f"]],
		["shred -u f", ["shred -u delete f"]],
	],
	truncate: [["truncate -s 0 log", ["truncate write log"]]],
	curl: [
		["curl -fsSL -o x.sh https://example.com/install.sh", ["curl -o write x.sh"]],
		["curl --output ../out https://example.com/", ["curl -o write ../out"]],
		["curl -O https://example.com/a/tool.tar.gz?x=1", ["curl -O write tool.tar.gz"]],
		["curl -O --output-dir /tmp https://example.com/t.sh", ["curl -O write /tmp/t.sh"]],
		["curl -H 'Accept: x' https://example.com", []],
		["curl -c jar.txt https://example.com", ["curl output file write jar.txt"]],
	],
	wget: [
		["wget -O out.html https://example.com/", ["wget -O write out.html"]],
		["wget -qO- https://example.com/", []],
		["wget https://example.com/f.zip", ["wget download write f.zip"]],
		["wget -P /tmp https://example.com/f.zip", ["wget download write /tmp/f.zip"]],
		["wget --spider https://example.com/f.zip", []],
	],
	tar: [
		["tar -xzf a.tgz", ["tar -x write ?./<archive members>"]],
		["tar xzf a.tgz -C /opt", ["tar -x write ?/opt/<archive members>"]],
		["tar -czf ../backup.tgz src", ["tar -f write ../backup.tgz"]],
		["tar -tzf a.tgz", []],
	],
	unzip: [
		["unzip a.zip -d out", ["unzip -d write ?out/<archive members>"]],
		["unzip a.zip", ["unzip write ?./<archive members>"]],
		["unzip -l a.zip", []],
	],
	patch: [
		["patch -p1 -i fix.diff", ["patch write ?<files the patch names>"]],
		["patch f.c fix.diff", ["patch write f.c"]],
		["patch -o out.c f.c fix.diff", ["patch -o write out.c"]],
		["patch --dry-run -p1 -i fix.diff", []],
	],
	chmod: [
		["chmod 755 a b", ["chmod write a", "chmod write b"]],
		["chmod -x a", ["chmod write a"]],
		["chmod --reference=a b", ["chmod write b"]],
	],
	chown: [["chown -R me:me dir", ["chown write dir"]]],
	chgrp: [["chgrp staff f", ["chgrp write f"]]],
	split: [
		["split -l 100 big.txt part-", ["split prefix write part-"]],
		["split big.txt", ["split prefix write x"]],
	],
	uniq: [
		["uniq in.txt out.txt", ["uniq output write out.txt"]],
		["uniq -c in.txt", []],
	],
	mkfifo: [["mkfifo -m 600 pipe", ["mkfifo write pipe"]]],
	npm: [
		["npm config set -g script-shell /tmp/x", ["npm config set -g write ?$(npm prefix -g)/etc/npmrc"]],
		["npm config set registry https://r.example", ["npm config set write ~/.npmrc"]],
		["npm config set --location=project save-exact true", ["npm config set --location=project write .npmrc"]],
		["npm install -g left-pad", ["npm install -g write ?$(npm prefix -g)"]],
		["npm install left-pad", []],
		["npm config get registry", []],
	],
	pip: [
		["pip install --user requests", ["pip install --user write ~/.local"]],
		["pip install -t vendor requests", ["pip install --target create-dir vendor"]],
		["pip install requests", []],
	],
	pip3: [["pip3 install --user -r requirements.txt", ["pip install --user write ~/.local"]]],
};

describe("programs that write their operands", () => {
	it("has a case for every row of the table", () => {
		expect(Object.keys(ROWS).sort()).toEqual(Object.keys(WRITE_TARGET_TABLE).sort());
	});

	for (const [program, cases] of Object.entries(ROWS)) {
		describe(program, () => {
			it.each(cases)("%s", (source, expected) => {
				expect(targets(source)).toEqual(expected);
			});
		});
	}
});

describe("what is not a write target", () => {
	it("does not read through an opaque command", () => {
		expect(targets('$CMD -o out')).toEqual([]);
	});

	it("finds targets behind wrappers and inside sh -c and heredoc scripts", () => {
		expect(targets("env nice cp a /etc/x")).toEqual(["cp destination write /etc/x"]);
		expect(targets("sh -c 'echo x > ~/.bashrc'")).toEqual(["> write ~/.bashrc"]);
		expect(targets("bash <<'EOF'\necho x >> ~/.profile\nEOF")).toEqual([">> append ~/.profile"]);
	});

	it("keeps flags and sub-command names out", () => {
		expect(targets("cp -r -- -odd dest")).toEqual(["cp destination write dest"]);
		expect(targets("git -c core.pager=cat diff --stat")).toEqual([]);
	});
});
