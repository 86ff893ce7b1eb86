// SPDX-License-Identifier: GPL-2.0
#include "lib/config_edit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

static bool line_listed(int lineno, const int *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (lines[i] == lineno)
			return true;
	return false;
}

char *config_text_drop_lines(const char *text, const int *lines, size_t n)
{
	char *out = xmalloc(strlen(text) + 1), *o = out;
	const char *p = text;
	int lineno = 0;

	/* the same split as config_parse_text, so that conf_mirror.line matches */
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		lineno++;
		if (!line_listed(lineno, lines, n)) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

char *config_text_append(const char *text, const char *line)
{
	size_t len = strlen(text);
	bool open_line = len > 0 && text[len - 1] != '\n';

	/* a last line without its newline would otherwise swallow ours */
	return xasprintf("%s%s%s\n", text, open_line ? "\n" : "", line);
}

/* Set *msg (taking text) and return -e. */
static int failed(char **msg, int e, char *text)
{
	*msg = text;
	return -e;
}

int config_file_load(const char *path, char **text, char **msg)
{
	size_t cap = 4096, len = 0;
	char *buf;
	int fd, e;

	*text = NULL;
	*msg = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT) {	/* no configuration yet: the first line creates it */
			*text = xstrdup("");
			return 0;
		}
		return failed(msg, e, xasprintf("cannot open %s: %s", path, strerror(e)));
	}
	/* not read_text_file(): it strips the trailing newlines, and we keep every byte */
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (len + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap, 1);
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			e = errno;
			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			return failed(msg, e, xasprintf("cannot read %s: %s", path, strerror(e)));
		}
		if (r == 0)
			break;
		len += (size_t)r;
		/* /dev/zero or a runaway file must not eat the memory */
		if (len > CONFIG_EDIT_MAX_BYTES) {
			free(buf);
			close(fd);
			return failed(msg, EFBIG, xasprintf("cannot read %s: larger than %u MiB, not a configuration file",
							    path, CONFIG_EDIT_MAX_BYTES >> 20));
		}
	}
	if (close(fd) < 0) {
		e = errno;
		free(buf);
		return failed(msg, e, xasprintf("cannot close %s: %s", path, strerror(e)));
	}
	/* the text is a C string from here on: a NUL would cut the rest off silently */
	if (memchr(buf, '\0', len)) {
		free(buf);
		return failed(msg, EINVAL, xasprintf("cannot read %s: it holds a NUL byte, it is not a text file", path));
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/* The umask can only be read by setting it; rdctl has a single thread. */
static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * The file to replace: path itself, or the target of the symlink path is,
 * so that a link (to a config kept elsewhere) stays a link. malloc'd, or
 * NULL with *msg set and *e the errno.
 */
static char *replace_target(const char *path, char **msg, int *e)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return xstrdup(path);	/* a stat error shows again, with its message, later */
	real = realpath(path, NULL);
	if (!real) {
		*e = errno;
		*msg = xasprintf("cannot resolve the symlink %s: %s", path, strerror(*e));
		return NULL;
	}
	/* realpath's buffer is malloc'd: free() takes it like ours */
	return real;
}

/* Remove the temporary file tmp after a failure, its error added to *msg. */
static void drop_temp(const char *tmp, char **msg)
{
	if (unlink(tmp) < 0) {
		char *m = *msg;
		int e = errno;

		*msg = xasprintf("%s; cannot remove %s either: %s", m, tmp, strerror(e));
		free(m);
	}
}

/*
 * The new data into a temporary file made from the template tmp (in dir),
 * with the owner (when root) of the file it replaces (st, when it exists)
 * and mode, on disk and closed. 0, or -errno with *msg set and nothing left.
 */
static int write_temp(char *tmp, const char *dir, const struct stat *st, bool exists, mode_t mode,
		      const void *data, size_t len, char **msg)
{
	int fd = mkostemp(tmp, O_CLOEXEC), e, r;

	if (fd < 0) {
		e = errno;
		return failed(msg, e, xasprintf("cannot create a temporary file in %s: %s", dir, strerror(e)));
	}
	/* owner before mode: chown clears the set-id bits */
	if (exists && geteuid() == 0 && fchown(fd, st->st_uid, st->st_gid) < 0) {
		e = errno;
		r = failed(msg, e, xasprintf("cannot set the owner of %s: %s", tmp, strerror(e)));
	} else if (fchmod(fd, mode) < 0) {
		e = errno;
		r = failed(msg, e, xasprintf("cannot set the mode of %s: %s", tmp, strerror(e)));
	} else if ((r = write_all(fd, data, len)) < 0) {
		r = failed(msg, -r, xasprintf("cannot write %s: %s", tmp, strerror(-r)));
	} else if (fsync(fd) < 0) {
		/* the data must be on disk before the name points at it */
		e = errno;
		r = failed(msg, e, xasprintf("cannot sync %s: %s", tmp, strerror(e)));
	} else {
		r = close(fd);
		fd = -1;
		if (r < 0) {
			e = errno;
			r = failed(msg, e, xasprintf("cannot close %s: %s", tmp, strerror(e)));
		}
	}
	if (r < 0) {
		if (fd >= 0)
			close(fd);	/* failing already: the first error is the one to report */
		drop_temp(tmp, msg);
	}
	return r;
}

int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode, char **msg)
{
	char *target, *dir = NULL, *tmp = NULL;
	const char *slash, *base;
	bool exists;
	struct stat st;
	int dfd = -1, e = 0, r;

	*msg = NULL;
	target = replace_target(path, msg, &e);
	if (!target)
		return -e;
	if (stat(target, &st) == 0) {
		exists = true;
	} else if (errno == ENOENT) {
		exists = false;
	} else {
		e = errno;
		r = failed(msg, e, xasprintf("cannot stat %s: %s", target, strerror(e)));
		goto out;
	}
	slash = strrchr(target, '/');
	base = slash ? slash + 1 : target;
	/* rename() would refuse these too, but only after a temporary file was made */
	if ((exists && S_ISDIR(st.st_mode)) || !*base) {
		r = failed(msg, EISDIR, xasprintf("cannot replace %s: %s", target, strerror(EISDIR)));
		goto out;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		r = failed(msg, EINVAL, xasprintf("cannot replace %s: not a regular file", target));
		goto out;
	}
	if (!slash)
		dir = xstrdup(".");
	else if (slash == target)
		dir = xstrdup("/");
	else
		dir = xasprintf("%.*s", (int)(slash - target), target);
	/* same directory, so same file system: rename() is then atomic */
	tmp = xasprintf("%.*s.%s.XXXXXX", (int)(base - target), target, base);

	/* opened first: a directory we cannot sync fails before anything is made */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		e = errno;
		r = failed(msg, e, xasprintf("cannot open directory %s: %s", dir, strerror(e)));
		goto out;
	}
	if (mode == FILE_MODE_KEEP)
		mode = exists ? (st.st_mode & 07777) : (0644 & ~current_umask());
	r = write_temp(tmp, dir, &st, exists, mode, data, len, msg);
	if (r < 0)
		goto out;
	if (rename(tmp, target) < 0) {
		e = errno;
		r = failed(msg, e, xasprintf("cannot rename %s to %s: %s", tmp, target, strerror(e)));
		drop_temp(tmp, msg);
		goto out;
	}
	/* and the new name on disk too; the content is in place already */
	if (fsync(dfd) < 0) {
		e = errno;
		r = failed(msg, e, xasprintf("cannot sync directory %s: %s", dir, strerror(e)));
		goto out;
	}
	r = close(dfd);
	dfd = -1;
	if (r < 0) {
		e = errno;
		r = failed(msg, e, xasprintf("cannot close directory %s: %s", dir, strerror(e)));
	}
out:
	if (dfd >= 0)
		close(dfd);
	free(tmp);
	free(dir);
	free(target);
	return r;
}

int config_write_atomic(const char *path, const char *text, char **msg)
{
	return file_write_atomic(path, text, strlen(text), FILE_MODE_KEEP, msg);
}

char *config_line_for(const char *uuid, bool auto_size, uint64_t size, bool prealloc)
{
	const char *opt = prealloc ? " prealloc" : "";

	/*
	 * Not size_mib_str(): its "2048 MiB" is two words to the parser. A
	 * bare number would be MiB too, the suffix says it plainly.
	 */
	if (auto_size)
		return xasprintf("UUID=%s auto%s", uuid, opt);
	if (size % (1ULL << 20) == 0)
		return xasprintf("UUID=%s %lluM%s", uuid, (unsigned long long)(size >> 20), opt);
	return xasprintf("UUID=%s %lluB%s", uuid, (unsigned long long)size, opt);
}
