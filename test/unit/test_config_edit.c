// SPDX-License-Identifier: GPL-2.0
/*
 * Editing /etc/rdmirror.conf: lines dropped and appended byte for byte, the
 * atomic replace (mode, owner, no temporary file left, failures that leave
 * the old file alone), its order of fsync and rename, a mode given, the
 * loader, and the line --create writes parsing back.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/config_edit.h"
#include "unit.h"
#include "lib/util.h"

#define NLINES(a) (sizeof(a) / sizeof((a)[0]))

static void check_drop(const char *text, const int *lines, size_t n, const char *want)
{
	char *got = config_text_drop_lines(text, lines, n);

	CHECK_STR(got, want);
	free(got);
}

static void drop_lines(void)
{
	static const char abc[] = "a\nbb\nccc\n";
	static const int one[] = { 1 }, two[] = { 2 }, three[] = { 3 }, four[] = { 4 };
	static const int past[] = { 9, 0, -1 }, both[] = { 3, 1 }, dup[] = { 2, 2, 4 };

	check_drop(abc, one, 1, "bb\nccc\n");
	check_drop(abc, two, 1, "a\nccc\n");
	check_drop(abc, three, 1, "a\nbb\n");
	/* after the last '\n' there is nothing: line 4 of abc does not exist */
	check_drop(abc, four, 1, abc);
	check_drop(abc, past, NLINES(past), abc);
	check_drop(abc, NULL, 0, abc);
	check_drop(abc, both, NLINES(both), "bb\n");
	check_drop("a\nb\nc\nd\n", dup, NLINES(dup), "a\nc\n");
	check_drop("a\nb\nc\nd\n", both, NLINES(both), "b\nd\n");
	/* a last line without its newline */
	check_drop("a\nb\nc", three, 1, "a\nb\n");
	check_drop("a\nb\nc", two, 1, "a\nc");
	check_drop("only", one, 1, "");
	check_drop("", one, 1, "");
	/* CRLF, blank lines and comments are copied as they are */
	check_drop("md0 auto\r\nmd1 2G\r\n# keep\r\n", one, 1, "md1 2G\r\n# keep\r\n");
	check_drop("# head\n\n  \nmd0 auto  # why\n# tail", four, 1, "# head\n\n  \n# tail");
	check_drop("\n\n\n", two, 1, "\n\n");
}

/* The line number config_parse_text gives a mirror is the one that drops it. */
static void drop_parsed_line(void)
{
	const char *text = "# mirrors\r\n"
			   "UUID=79387934:aaaad032:f56c6261:de230a86 auto prealloc\r\n"
			   "\n"
			   "/dev/md/data 2G # the data\n"
			   "md1 512";
	struct config c;
	char *out;
	int line = 0;

	config_parse_text("t", text, &c);
	CHECK_U64(c.n, 3);
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].kind == CONF_MDNAME && !strcmp(c.v[i].name, "data"))
			line = c.v[i].line;
	config_free(&c);
	CHECK_U64(line, 4);
	out = config_text_drop_lines(text, &line, 1);
	CHECK_STR(out, "# mirrors\r\n"
		       "UUID=79387934:aaaad032:f56c6261:de230a86 auto prealloc\r\n"
		       "\n"
		       "md1 512");
	config_parse_text("t", out, &c);
	CHECK_U64(c.n, 2);
	CHECK_U64(c.nerrs, 0);
	config_free(&c);
	free(out);
}

static void check_append(const char *text, const char *line, const char *want)
{
	char *got = config_text_append(text, line);

	CHECK_STR(got, want);
	free(got);
}

static void append(void)
{
	check_append("", "md0 auto", "md0 auto\n");
	check_append("# c\n", "md0 auto", "# c\nmd0 auto\n");
	check_append("# c", "md0 auto", "# c\nmd0 auto\n");
	check_append("md1 2G\r\n", "md0 auto", "md1 2G\r\nmd0 auto\n");
	check_append("\n", "md0 auto", "\nmd0 auto\n");
}

/* Write len bytes to path with mode (umask aside). 0 or -1. */
static int put_file(const char *path, const char *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int r = 0;

	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len || fchmod(fd, mode) < 0)
		r = -1;
	if (close(fd) < 0)
		r = -1;
	return r;
}

/* The names in dir, sorted, joined by ' ' ("" when empty; "?" on error). */
static char *dir_names(const char *dir)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, alphasort);
	char *s = xstrdup("");

	if (n < 0) {
		free(s);
		return xstrdup("?");
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, "..")) {
			char *t = xasprintf("%s%s%s", s, *s ? " " : "", v[i]->d_name);

			free(s);
			s = t;
		}
		free(v[i]);
	}
	free(v);
	return s;
}

static void check_names(const char *dir, const char *want)
{
	char *got = dir_names(dir);

	CHECK_STR(got, want);
	free(got);
}

static void check_load(const char *path, const char *want)
{
	char *text = NULL, *msg = NULL;

	CHECK_U64(config_file_load(path, &text, &msg), 0);
	CHECK_STR(text, want);
	CHECK(msg == NULL);
	free(text);
	free(msg);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 ? (mode_t)-1 : st.st_mode & 07777;
}

/*
 * What a write did while tracing, in order: "fsync temp" (a name starting
 * with '.'), "fsync NAME", "fsync dir", "rename temp NAME". fsync() and
 * rename() here stand in for libc's in the whole unit test program (a
 * program's own definition comes first), and do what libc's do.
 */
static bool tracing;
static char trace[512];

/* name's last part, or "temp" for a hidden one (config_write_atomic()'s temporary file) */
static const char *short_name(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return *base == '.' ? "temp" : base;
}

__attribute__((format(printf, 1, 2)))
static void trace_add(const char *fmt, ...)
{
	size_t n = strlen(trace);
	va_list ap;

	if (n && n + 2 < sizeof(trace)) {
		strcpy(trace + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(trace + n, sizeof(trace) - n, fmt, ap);
	va_end(ap);
}

int fsync(int fd)
{
	if (tracing) {
		char link[64], target[PATH_MAX];
		struct stat st;
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		trace_add("fsync %s", fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? "dir" : short_name(target));
	}
	return (int)syscall(SYS_fsync, fd);
}

int rename(const char *from, const char *to)
{
	if (tracing)
		trace_add("rename %s %s", short_name(from), short_name(to));
	return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

/* The new content on disk before its name, the name on disk after: a crash leaves the old file or the new. */
static void write_order(const char *dir)
{
	char *path = xasprintf("%s/order.conf", dir), *msg = NULL;

	trace[0] = '\0';
	tracing = true;
	CHECK_U64(config_write_atomic(path, "md0 auto\n", &msg), 0);
	tracing = false;
	CHECK_STR(trace, "fsync temp; rename temp order.conf; fsync dir");
	check_load(path, "md0 auto\n");
	check_names(dir, "order.conf");
	CHECK(unlink(path) == 0);
	free(msg);
	free(path);
}

/* file_write_atomic(): bytes with NULs, and the mode given, new file or not, whatever the umask. */
static void bytes_with_mode(const char *dir)
{
	static const unsigned char data[] = { 0xfc, 0x4e, 0x2b, 0xa9, 0, 0, 0, 1, 0, 0xff };
	char *path = xasprintf("%s/record.sb", dir), *msg = NULL;
	unsigned char got[sizeof(data) + 1];
	mode_t old = umask(0);
	ssize_t n;
	int fd;

	CHECK_U64(file_write_atomic(path, data, sizeof(data), 0600, &msg), 0);
	CHECK(msg == NULL);
	CHECK_U64(mode_of(path), 0600);
	/* a file more open than that is made 0600 too */
	CHECK(chmod(path, 0644) == 0);
	trace[0] = '\0';
	tracing = true;
	CHECK_U64(file_write_atomic(path, data, sizeof(data) - 1, 0600, &msg), 0);
	tracing = false;
	CHECK_STR(trace, "fsync temp; rename temp record.sb; fsync dir");
	CHECK_U64(mode_of(path), 0600);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, got, sizeof(got));
	if (fd >= 0)
		close(fd);
	CHECK_U64(n, sizeof(data) - 1);
	CHECK(n == sizeof(data) - 1 && !memcmp(got, data, sizeof(data) - 1));
	check_names(dir, "record.sb");
	umask(old);
	CHECK(unlink(path) == 0);
	free(msg);
	free(path);
}

static void round_trip(const char *dir)
{
	static const char weird[] = "# rdmirror\r\n\n\t md0   auto # x\r\n\xff\xfe bytes\nno newline";
	char *path = xasprintf("%s/rdmirror.conf", dir), *msg = NULL;
	mode_t old = umask(022);

	check_load(path, "");	/* missing: empty, not an error */
	CHECK_U64(config_write_atomic(path, weird, &msg), 0);
	CHECK(msg == NULL);
	free(msg);
	check_load(path, weird);
	/* new file: 0644 under umask 022 */
	CHECK_U64(mode_of(path), 0644);
	check_names(dir, "rdmirror.conf");
	CHECK_U64(config_write_atomic(path, "", &msg), 0);
	check_load(path, "");
	check_names(dir, "rdmirror.conf");
	umask(old);
	CHECK(unlink(path) == 0);
	free(path);
}

static void keeps_mode(const char *dir)
{
	char *path = xasprintf("%s/private.conf", dir), *msg = NULL;
	struct stat st;

	CHECK(put_file(path, "md0 auto\n", 9, 0600) == 0);
	CHECK_U64(mode_of(path), 0600);
	CHECK_U64(config_write_atomic(path, "md0 auto\nmd1 2G\n", &msg), 0);
	CHECK(msg == NULL);
	check_load(path, "md0 auto\nmd1 2G\n");
	CHECK_U64(mode_of(path), 0600);
	/* as root, the owner and group too (otherwise it is ours anyway) */
	if (geteuid() == 0) {
		CHECK(chown(path, 4321, 4322) == 0);
		CHECK_U64(config_write_atomic(path, "md2 auto\n", &msg), 0);
		CHECK(msg == NULL);
		CHECK(stat(path, &st) == 0 && st.st_uid == 4321 && st.st_gid == 4322);
		CHECK_U64(mode_of(path), 0600);
		check_load(path, "md2 auto\n");
	}
	check_names(dir, "private.conf");
	CHECK(unlink(path) == 0);
	free(path);
}

/* A symlink stays a link; its target gets the text and keeps its mode. */
static void follows_symlink(const char *dir)
{
	char *real = xasprintf("%s/real.conf", dir), *link = xasprintf("%s/link.conf", dir);
	char *msg = NULL;
	struct stat st;

	CHECK(put_file(real, "# old\n", 6, 0640) == 0);
	CHECK(symlink("real.conf", link) == 0);
	CHECK_U64(config_write_atomic(link, "# new\n", &msg), 0);
	CHECK(msg == NULL);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	check_load(real, "# new\n");
	CHECK_U64(mode_of(real), 0640);
	check_names(dir, "link.conf real.conf");
	CHECK(unlink(link) == 0);
	CHECK(unlink(real) == 0);
	free(real);
	free(link);
}

static void write_failures(const char *dir)
{
	char *nodir = xasprintf("%s/nodir", dir), *path = xasprintf("%s/rdmirror.conf", nodir);
	char *want = xasprintf("cannot open directory %s: %s", nodir, strerror(ENOENT));
	char *msg = NULL;

	CHECK_U64(config_write_atomic(path, "md0 auto\n", &msg), -ENOENT);
	CHECK_STR(msg, want);
	CHECK(!path_exists(nodir));
	check_names(dir, "");
	free(msg);
	free(want);
	free(path);

	/* a directory where the file should be */
	CHECK(mkdir(nodir, 0755) == 0);
	msg = NULL;
	want = xasprintf("cannot replace %s: %s", nodir, strerror(EISDIR));
	CHECK_U64(config_write_atomic(nodir, "md0 auto\n", &msg), -EISDIR);
	CHECK_STR(msg, want);
	check_names(dir, "nodir");
	check_names(nodir, "");
	CHECK(rmdir(nodir) == 0);
	free(msg);
	free(want);
	free(nodir);
}

/*
 * A write that fails half way (RLIMIT_FSIZE makes write() return EFBIG, even
 * for root): the old file is untouched and the temporary file is gone.
 */
static void write_fails_half_way(const char *dir)
{
	char *path = xasprintf("%s/f.conf", dir), *prefix = xasprintf("cannot write %s/.f.conf.", dir);
	char *big = xmalloc(4097), *msg = NULL;
	const char *suffix = ": File too large";
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_sa;
	struct rlimit old_rl, rl;
	int r;

	memset(big, 'x', 4096);
	big[4096] = '\0';
	CHECK(put_file(path, "# old\n", 6, 0644) == 0);
	CHECK(getrlimit(RLIMIT_FSIZE, &old_rl) == 0);
	rl = old_rl;
	rl.rlim_cur = 1024;
	CHECK(sigaction(SIGXFSZ, &ign, &old_sa) == 0);
	CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
	r = config_write_atomic(path, big, &msg);
	CHECK(setrlimit(RLIMIT_FSIZE, &old_rl) == 0);
	CHECK(sigaction(SIGXFSZ, &old_sa, NULL) == 0);
	CHECK_U64(r, -EFBIG);
	CHECK(msg && !strncmp(msg, prefix, strlen(prefix)));
	CHECK(msg && strlen(msg) > strlen(suffix) && !strcmp(msg + strlen(msg) - strlen(suffix), suffix));
	check_load(path, "# old\n");
	check_names(dir, "f.conf");
	CHECK(unlink(path) == 0);
	free(msg);
	free(big);
	free(prefix);
	free(path);
}

static void load_failures(const char *dir)
{
	static const char nul[] = "md0 auto\n\0md1 2G\n";
	char *path = xasprintf("%s/nul.conf", dir), *text = NULL, *msg = NULL;
	char *want = xasprintf("cannot read %s: it holds a NUL byte, it is not a text file", path);

	CHECK(put_file(path, nul, sizeof(nul) - 1, 0644) == 0);
	CHECK_U64(config_file_load(path, &text, &msg), -EINVAL);
	CHECK(text == NULL);
	CHECK_STR(msg, want);
	CHECK(unlink(path) == 0);
	free(msg);
	free(want);

	/* a directory reads as EISDIR */
	msg = NULL;
	want = xasprintf("cannot read %s: %s", dir, strerror(EISDIR));
	CHECK_U64(config_file_load(dir, &text, &msg), -EISDIR);
	CHECK(text == NULL);
	CHECK_STR(msg, want);
	free(msg);
	free(want);
	free(path);
}

static void check_line_for(bool auto_size, uint64_t size, bool prealloc, const char *want)
{
	static const char uuid[] = "79387934:aaaad032:f56c6261:de230a86";
	char *line = config_line_for(uuid, auto_size, size, prealloc);
	char *full = xasprintf("UUID=%s %s", uuid, want);
	struct config c;

	CHECK_STR(line, full);
	config_parse_text("t", line, &c);
	CHECK_U64(c.nerrs, 0);
	CHECK_U64(c.n, 1);
	if (c.n == 1) {
		CHECK(c.v[0].kind == CONF_UUID);
		CHECK_STR(c.v[0].uuid, uuid);
		CHECK(c.v[0].auto_size == auto_size);
		if (!auto_size)
			CHECK_U64(c.v[0].size, size);
		CHECK(c.v[0].prealloc == prealloc);
	}
	config_free(&c);
	free(full);
	free(line);
}

static void line_for(void)
{
	check_line_for(true, 0, false, "auto");
	check_line_for(true, 0, true, "auto prealloc");
	check_line_for(false, 2ULL << 30, false, "2048M");
	check_line_for(false, 2ULL << 30, true, "2048M prealloc");
	check_line_for(false, 1ULL << 40, false, "1048576M");
	check_line_for(false, 3ULL << 19, false, "1572864B");		/* 1.5 MiB */
	check_line_for(false, (3ULL << 19) + 4096, false, "1576960B");	/* 1.5 MiB + 4 KiB */
	check_line_for(false, 4096, true, "4096B prealloc");
}

void test_config_edit(const char *tmpdir)
{
	char *dir = xasprintf("%s/config_edit", tmpdir);

	drop_lines();
	drop_parsed_line();
	append();
	line_for();
	CHECK(mkdir(dir, 0755) == 0);
	if (!path_exists(dir)) {
		free(dir);
		return;
	}
	round_trip(dir);
	keeps_mode(dir);
	follows_symlink(dir);
	write_failures(dir);
	write_fails_half_way(dir);
	write_order(dir);
	bytes_with_mode(dir);
	load_failures(dir);
	check_names(dir, "");
	CHECK(rmdir(dir) == 0);
	free(dir);
}
