/*
 * landlock-exec: runs one program confined by Landlock, with no namespaces.
 *
 *   landlock-exec [--write PATH]... [--read PATH]... [--list PATH]... [--no-network] -- PROGRAM [ARG]...
 *   landlock-exec --probe
 *
 * --write PATH   PATH (a directory: its whole hierarchy) may be written, created in and removed from.
 * --read PATH    when any --read is given, reads are confined too: only these hierarchies (and the
 *                --write ones) may be read, listed or executed.
 * --list PATH    with --read: the directories of PATH's hierarchy may be listed (not their files read).
 * --no-network   no IP socket can be made (seccomp), and Landlock denies TCP bind/connect where the
 *                kernel has network rules (ABI >= 4).
 *
 * Everything not named by --write is read-only. Rights the running kernel does not know are left
 * out (best effort per ABI, 1 to the newest). The process keeps no privileges: no_new_privs, and
 * when run as root every capability is dropped. Where the kernel has scopes (ABI >= 6) the
 * command can signal no process outside its own domain and reach no abstract UNIX socket outside it.
 *
 * The helper itself stays outside the domain, as a child subreaper: when the command ends, or the
 * helper is told to stop (SIGTERM, SIGINT, SIGHUP), it kills every process the command left,
 * including ones that left its process group, so nothing outlives the call.
 *
 * Exit status: the command's; EXIT_UNAVAILABLE when Landlock (or a requested confinement) cannot be
 * applied, EXIT_USAGE for a bad command line. Nothing runs unconfined.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#if defined(__has_include)
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#endif
#endif
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <linux/audit.h>
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define HAS_X32 1
#elif defined(__aarch64__)
#include <linux/audit.h>
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define HAS_X32 0
#endif

#define EXIT_UNAVAILABLE 97
#define EXIT_USAGE 96
#define MAX_RULES 4096

/* Newer kernels' constants, for building against older headers (or none). */
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define LANDLOCK_RULE_PATH_BENEATH 1
#define LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

/* The ruleset attribute with every field any ABI has; the size passed tells the kernel which ones. */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define FS_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_WRITE_V1                                                                                                      \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |                   \
	 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                          \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |                       \
	 LANDLOCK_ACCESS_FS_MAKE_SYM)
/* Rights that make sense on a file (not a directory) rule. */
#define FS_FILE_RIGHTS                                                                                                   \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |                        \
	 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int landlock_create_ruleset(const struct ruleset_attr *attr, size_t size, uint32_t flags) {
	return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}
static int landlock_add_rule(int fd, int type, const void *attr, uint32_t flags) {
	return (int)syscall(__NR_landlock_add_rule, fd, type, attr, flags);
}
static int landlock_restrict_self(int fd, uint32_t flags) {
	return (int)syscall(__NR_landlock_restrict_self, fd, flags);
}

static void die(int code, const char *what) {
	fprintf(stderr, "warden-landlock: %s\n", what);
	exit(code);
}

static void die_errno(int code, const char *what, const char *path) {
	fprintf(stderr, "warden-landlock: %s%s%s: %s\n", what, path ? " " : "", path ? path : "", strerror(errno));
	exit(code);
}

/* Each ABI's file-system rights, newest last. */
static uint64_t fs_write_rights(int abi) {
	uint64_t rights = FS_WRITE_V1;
	if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return rights;
}

static void add_path(int ruleset, const char *path, uint64_t rights) {
	/* A link is not followed: the caller names real paths, and a link swapped in must not widen a rule. */
	int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		/* Named by the caller a moment ago and gone now: nothing there to allow. */
		if (errno == ENOENT) return;
		die_errno(EXIT_UNAVAILABLE, "cannot open", path);
	}
	struct stat st;
	if (fstat(fd, &st) != 0) die_errno(EXIT_UNAVAILABLE, "cannot stat", path);
	if (S_ISLNK(st.st_mode)) {
		close(fd);
		return;
	}
	if (!S_ISDIR(st.st_mode)) rights &= FS_FILE_RIGHTS;
	struct path_beneath rule = {.allowed_access = rights, .parent_fd = fd};
	if (rights != 0 && landlock_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
		die_errno(EXIT_UNAVAILABLE, "cannot add a rule for", path);
	close(fd);
}

#ifdef NATIVE_ARCH
/* Denies making IP and packet sockets, and io_uring (whose operations do not pass through seccomp). */
static void deny_network_seccomp(void) {
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if HAS_X32
		/* x32 system calls would be another table to filter: refuse them all. */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_PACKET, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* "Network is unreachable": what programs print then says what happened. */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENETUNREACH),
	};
	struct sock_fprog prog = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) die_errno(EXIT_UNAVAILABLE, "cannot install the network filter", NULL);
}
#endif

/* Root keeps uid 0 (the workspace's files are its own) but no capability, now or after exec. */
static void drop_capabilities(void) {
	if (geteuid() != 0) return;
	for (int cap = 0; cap <= 63; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &header, data) != 0) die_errno(EXIT_UNAVAILABLE, "cannot drop capabilities", NULL);
}

static volatile sig_atomic_t stop_requested = 0;
static void on_stop(int sig) {
	(void)sig;
	stop_requested = 1;
}

/* Kills every child (the subreaper inherits each orphaned descendant) until none is left. */
static void kill_descendants(pid_t self) {
	for (int round = 0; round < 10000; round++) {
		int found = 0;
		DIR *proc = opendir("/proc");
		if (proc == NULL) return;
		struct dirent *entry;
		while ((entry = readdir(proc)) != NULL) {
			char *end;
			long pid = strtol(entry->d_name, &end, 10);
			if (*end != '\0' || pid <= 0) continue;
			char path[64], buf[512];
			snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0) continue;
			ssize_t n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0) continue;
			buf[n] = '\0';
			/* The command name may hold spaces and parentheses: the fields resume after the last ')'. */
			char *close_paren = strrchr(buf, ')');
			char state;
			long ppid;
			if (close_paren == NULL || sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2) continue;
			if (ppid != self) continue;
			found = 1;
			kill((pid_t)pid, SIGKILL);
		}
		closedir(proc);
		while (waitpid(-1, NULL, WNOHANG) > 0) found = 1;
		if (!found) {
			if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) return;
			usleep(1000);
		}
	}
}

int main(int argc, char **argv) {
	static const char *writes[MAX_RULES], *reads[MAX_RULES], *lists[MAX_RULES];
	int nwrites = 0, nreads = 0, nlists = 0, no_network = 0, probe = 0, i = 1;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--probe") == 0) probe = 1;
		else if (strcmp(argv[i], "--no-network") == 0) no_network = 1;
		else if (strcmp(argv[i], "--write") == 0 && i + 1 < argc && nwrites < MAX_RULES) writes[nwrites++] = argv[++i];
		else if (strcmp(argv[i], "--read") == 0 && i + 1 < argc && nreads < MAX_RULES) reads[nreads++] = argv[++i];
		else if (strcmp(argv[i], "--list") == 0 && i + 1 < argc && nlists < MAX_RULES) lists[nlists++] = argv[++i];
		else {
			fprintf(stderr, "warden-landlock: unknown option, missing operand or too many paths: %s\n", argv[i]);
			return EXIT_USAGE;
		}
	}

	int abi = landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0) {
		if (errno == ENOSYS) die(EXIT_UNAVAILABLE, "Landlock is not available: the kernel was built without it");
		if (errno == EOPNOTSUPP) die(EXIT_UNAVAILABLE, "Landlock is not available: it is disabled at boot (lsm=)");
		die_errno(EXIT_UNAVAILABLE, "Landlock is not available", NULL);
	}
	if (probe) {
#ifdef NATIVE_ARCH
		const char *seccomp = "yes";
#else
		const char *seccomp = "no";
#endif
		printf("abi=%d seccomp=%s\n", abi, seccomp);
		return 0;
	}
	if (i >= argc) die(EXIT_USAGE, "no program to run after --");

	struct ruleset_attr attr = {0};
	size_t attr_size = offsetof(struct ruleset_attr, handled_access_net);
	uint64_t write_rights = fs_write_rights(abi);
	uint64_t read_rights = nreads > 0 || nlists > 0 ? FS_READ : 0;
	attr.handled_access_fs = write_rights | read_rights;
	if (no_network && abi >= 4) {
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
		attr_size = offsetof(struct ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
#ifndef NATIVE_ARCH
	if (no_network && abi < 4) die(EXIT_UNAVAILABLE, "cannot deny the network: no Landlock network rules (ABI < 4) and no seccomp filter for this architecture");
#endif
	int ruleset = landlock_create_ruleset(&attr, attr_size, 0);
	if (ruleset < 0) die_errno(EXIT_UNAVAILABLE, "cannot create the Landlock ruleset", NULL);
	for (int w = 0; w < nwrites; w++) add_path(ruleset, writes[w], write_rights | read_rights);
	for (int r = 0; r < nreads; r++) add_path(ruleset, reads[r], read_rights);
	for (int l = 0; l < nlists; l++) add_path(ruleset, lists[l], LANDLOCK_ACCESS_FS_READ_DIR);

	pid_t self = getpid();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die_errno(EXIT_UNAVAILABLE, "cannot become a subreaper", NULL);
	struct sigaction stop = {0};
	stop.sa_handler = on_stop;
	sigemptyset(&stop.sa_mask);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);

	pid_t child = fork();
	if (child < 0) die_errno(EXIT_UNAVAILABLE, "cannot fork", NULL);
	if (child == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/* The command dies with the helper, should the helper be killed outright. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self) _exit(EXIT_UNAVAILABLE);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die_errno(EXIT_UNAVAILABLE, "cannot set no_new_privs", NULL);
		drop_capabilities();
		if (landlock_restrict_self(ruleset, 0) != 0) die_errno(EXIT_UNAVAILABLE, "cannot enforce the Landlock ruleset", NULL);
		close(ruleset);
#ifdef NATIVE_ARCH
		if (no_network) deny_network_seccomp();
#endif
		execvp(argv[i], &argv[i]);
		fprintf(stderr, "warden-landlock: cannot run %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	close(ruleset);

	int status = 0;
	for (;;) {
		pid_t got = waitpid(child, &status, 0);
		if (got == child) break;
		if (got < 0 && errno == EINTR && stop_requested) {
			kill(child, SIGKILL);
			kill_descendants(self);
			waitpid(child, &status, 0);
			break;
		}
		if (got < 0 && errno != EINTR) break;
	}
	kill_descendants(self);
	if (WIFEXITED(status)) return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	return EXIT_UNAVAILABLE;
}
