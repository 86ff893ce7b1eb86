// SPDX-License-Identifier: GPL-2.0
/*
 * mdadm.conf kept in step with --convert/--revert (issue #20): the count in
 * the array's ARRAY entry rewritten byte for byte, read as mdadm reads it
 * (continuation lines, comments, keyword abbreviations, UUID forms); the
 * lookup for status; the file update; and the initramfs made again through
 * a fake update-initramfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/config_edit.h"
#include "md/mdadm_conf.h"
#include "unit.h"
#include "lib/util.h"

#define U0 "79387934:aaaad032:f56c6261:de230a86"
#define U1 "0a1b2c3d:00000000:11111111:22222222"

/* fix text for U0 (3 devices, spares as given): want, and n values changed. */
static void check_fix(const char *text, int spares, const char *want, int n)
{
	int got_n = -1;
	char *got = mdadm_conf_fix_text(text, U0, 3, spares, &got_n);

	CHECK_STR(got, want);
	CHECK_U64(got_n, n);
	free(got);
}

/* text is left as it is */
static void check_same(const char *text)
{
	check_fix(text, 0, text, 0);
}

static void simple_line(void)
{
	check_fix("ARRAY /dev/md0 level=raid1 num-devices=2 UUID=" U0 "\n", -1,
		  "ARRAY /dev/md0 level=raid1 num-devices=3 UUID=" U0 "\n", 1);
	/* back: --revert */
	{
		char *got = mdadm_conf_fix_text("ARRAY /dev/md0 num-devices=3 UUID=" U0 "\n", U0, 2, -1, NULL);

		CHECK_STR(got, "ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n");
		free(got);
	}
	/* the old form disks= is the same count to mdadm */
	check_fix("ARRAY /dev/md0 disks=2 UUID=" U0 "\n", -1, "ARRAY /dev/md0 disks=3 UUID=" U0 "\n", 1);
	/* upper case attribute names, tabs, several blanks */
	check_fix("ARRAY\t/dev/md0   NUM-DEVICES=2\tuuid=" U0 "  \n", -1,
		  "ARRAY\t/dev/md0   NUM-DEVICES=3\tuuid=" U0 "  \n", 1);
	/* more digits to fewer and back */
	check_fix("ARRAY /dev/md0 num-devices=12 UUID=" U0, -1, "ARRAY /dev/md0 num-devices=3 UUID=" U0, 1);
	/* quoted: mdadm reads it without the quotes; so is it written */
	check_fix("ARRAY /dev/md0 num-devices=\"2\" UUID=\"" U0 "\"\n", -1,
		  "ARRAY /dev/md0 num-devices=3 UUID=\"" U0 "\"\n", 1);
	check_fix("ARRAY /dev/md0 'Num-Devices=2' UUID=" U0 "\n", -1,
		  "ARRAY /dev/md0 Num-Devices=3 UUID=" U0 "\n", 1);
}

static void continuation(void)
{
	check_fix("ARRAY /dev/md0 UUID=" U0 "\n   level=raid1 num-devices=2\n", -1,
		  "ARRAY /dev/md0 UUID=" U0 "\n   level=raid1 num-devices=3\n", 1);
	/* the UUID on the continuation line, the count on the first */
	check_fix("ARRAY /dev/md0 num-devices=2\n\tmetadata=0.90\n\tUUID=" U0 "\n", -1,
		  "ARRAY /dev/md0 num-devices=3\n\tmetadata=0.90\n\tUUID=" U0 "\n", 1);
	/* blank and comment lines do not end the entry (mdadm 4.2 agrees) */
	check_fix("ARRAY /dev/md0 UUID=" U0 "\n# was two\n\n  \n\tnum-devices=2\n", -1,
		  "ARRAY /dev/md0 UUID=" U0 "\n# was two\n\n  \n\tnum-devices=3\n", 1);
	/* a line at the left margin does, even one mdadm does not know */
	check_same("ARRAY /dev/md0 UUID=" U0 "\nMAILADDR root\n  num-devices=2\n");
	check_same("ARRAY /dev/md0 UUID=" U0 "\nDEVICE /dev/sd*\n  num-devices=2\n");
	/* an indented first line: mdadm takes it as the first entry */
	check_fix("  ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n", -1,
		  "  ARRAY /dev/md0 num-devices=3 UUID=" U0 "\n", 1);
	check_fix("\n# c\n  ARRAY /dev/md0 UUID=" U0 "\n\tnum-devices=2\nARRAY /dev/md1 UUID=" U1 " num-devices=2\n", -1,
		  "\n# c\n  ARRAY /dev/md0 UUID=" U0 "\n\tnum-devices=3\nARRAY /dev/md1 UUID=" U1 " num-devices=2\n", 1);
	/* and the next entry's continuation is its own */
	check_fix("ARRAY /dev/md1 UUID=" U1 "\n  num-devices=2\nARRAY /dev/md0 UUID=" U0 "\n  num-devices=2\n", -1,
		  "ARRAY /dev/md1 UUID=" U1 "\n  num-devices=2\nARRAY /dev/md0 UUID=" U0 "\n  num-devices=3\n", 1);
}

static void only_this_array(void)
{
	static const char two[] =
		"DEVICE partitions\n"
		"ARRAY /dev/md0 level=raid1 num-devices=2 UUID=" U1 "\n"
		"ARRAY /dev/md1 level=raid1 num-devices=2 UUID=" U0 "\n"
		"MAILADDR root\n";

	check_fix(two, -1,
		  "DEVICE partitions\n"
		  "ARRAY /dev/md0 level=raid1 num-devices=2 UUID=" U1 "\n"
		  "ARRAY /dev/md1 level=raid1 num-devices=3 UUID=" U0 "\n"
		  "MAILADDR root\n", 1);
	/* an entry without a UUID, or with a bad one, is not ours */
	check_same("ARRAY /dev/md0 num-devices=2 name=host:0\n");
	check_same("ARRAY /dev/md0 num-devices=2 UUID=79387934:aaaad032:f56c6261\n");
	check_same("ARRAY /dev/md0 num-devices=2 UUID=" U0 ":00\n");
	/* the first uuid= that parses is the entry's: mdadm ignores the rest */
	check_same("ARRAY /dev/md0 num-devices=2 UUID=" U1 " uuid=" U0 "\n");
	check_fix("ARRAY /dev/md0 num-devices=2 UUID=" U0 " uuid=" U1 "\n", -1,
		  "ARRAY /dev/md0 num-devices=3 UUID=" U0 " uuid=" U1 "\n", 1);
	check_fix("ARRAY /dev/md0 num-devices=2 UUID=bad uuid=" U0 "\n", -1,
		  "ARRAY /dev/md0 num-devices=3 UUID=bad uuid=" U0 "\n", 1);
	/* two entries naming it (mdadm refuses to choose): both follow */
	check_fix("ARRAY /dev/md0 num-devices=2 UUID=" U0 "\nARRAY /dev/md9 num-devices=2 UUID=" U0 "\n", -1,
		  "ARRAY /dev/md0 num-devices=3 UUID=" U0 "\nARRAY /dev/md9 num-devices=3 UUID=" U0 "\n", 2);
	/* an invalid UUID to look for matches nothing */
	{
		int n = -1;
		char *got = mdadm_conf_fix_text(two, "md0", 3, 0, &n);

		CHECK_STR(got, two);
		CHECK_U64(n, 0);
		free(got);
	}
}

static void uuid_forms(void)
{
	static const char *const forms[] = {
		"79387934:AAAAD032:F56C6261:DE230A86",		/* upper case */
		"79387934.aaaad032.f56c6261.de230a86",		/* '.' (mdadm's parse_uuid) */
		"79387934-aaaa-d032-f56c-6261de230a86",		/* md's and blkid's form */
		"79387934aaaad032f56c6261de230a86",		/* no separators */
		"'79387934 aaaad032 f56c6261 de230a86'",	/* spaces, quoted */
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char *text = xasprintf("ARRAY /dev/md0 uuid=%s num-devices=2\n", forms[i]);
		char *want = xasprintf("ARRAY /dev/md0 uuid=%s num-devices=3\n", forms[i]);

		check_fix(text, -1, want, 1);
		free(want);
		free(text);
	}
	/* the UUID asked for in md's form, the file in mdadm's */
	{
		char *got = mdadm_conf_fix_text("ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n",
						"79387934-AAAA-D032-F56C-6261DE230A86", 3, -1, NULL);

		CHECK_STR(got, "ARRAY /dev/md0 num-devices=3 UUID=" U0 "\n");
		free(got);
	}
}

static void spares(void)
{
	check_fix("ARRAY /dev/md0 num-devices=2 spares=1 UUID=" U0 "\n", 0,
		  "ARRAY /dev/md0 num-devices=3 spares=0 UUID=" U0 "\n", 2);
	/* -1: spares left alone */
	check_fix("ARRAY /dev/md0 num-devices=2 spares=1 UUID=" U0 "\n", -1,
		  "ARRAY /dev/md0 num-devices=3 spares=1 UUID=" U0 "\n", 1);
	/* spare-group= is another attribute */
	check_fix("ARRAY /dev/md0 spare-group=g spares=1 UUID=" U0 "\n", 0,
		  "ARRAY /dev/md0 spare-group=g spares=0 UUID=" U0 "\n", 1);
	/* raid_disks -1: the count left alone */
	{
		int n = -1;
		char *got = mdadm_conf_fix_text("ARRAY /dev/md0 num-devices=2 spares=1 UUID=" U0 "\n", U0, -1, 2, &n);

		CHECK_STR(got, "ARRAY /dev/md0 num-devices=2 spares=2 UUID=" U0 "\n");
		CHECK_U64(n, 1);
		free(got);
	}
	/* no spares= in the entry: none added */
	check_fix("ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n", 1, "ARRAY /dev/md0 num-devices=3 UUID=" U0 "\n", 1);
}

/* fix text for U0 with both attributes as given: want, and n words changed. */
static void check_fix2(const char *text, int raid_disks, int spares, const char *want, int n)
{
	int got_n = -1;
	char *got = mdadm_conf_fix_text(text, U0, raid_disks, spares, &got_n);

	CHECK_STR(got, want);
	CHECK_U64(got_n, n);
	free(got);
}

/* MDADM_CONF_DROP: the words go, the entry stays one entry. */
static void drop(void)
{
	const int D = MDADM_CONF_DROP, K = MDADM_CONF_KEEP;

	check_fix2("ARRAY /dev/md0 level=raid1 num-devices=2 UUID=" U0 "\n", D, K,
		   "ARRAY /dev/md0 level=raid1 UUID=" U0 "\n", 1);
	check_fix2("ARRAY /dev/md0 UUID=" U0 " num-devices=2\r\n", D, K, "ARRAY /dev/md0 UUID=" U0 "\r\n", 1);
	check_fix2("ARRAY /dev/md0 num-devices=2 UUID=" U0 " # was 2", D, K, "ARRAY /dev/md0 UUID=" U0 " # was 2", 1);
	check_fix2("ARRAY /dev/md0 'num-devices=2'\tUUID=" U0 "\n", D, K, "ARRAY /dev/md0\tUUID=" U0 "\n", 1);
	/* opening a continuation line: the indent stays, the next word continues */
	check_fix2("ARRAY /dev/md0 UUID=" U0 "\n  num-devices=2 metadata=0.90\n", D, K,
		   "ARRAY /dev/md0 UUID=" U0 "\n  metadata=0.90\n", 1);
	check_fix2("ARRAY /dev/md0 UUID=" U0 "\n\tnum-devices=2\r\n", D, K, "ARRAY /dev/md0 UUID=" U0 "\n\t\r\n", 1);
	check_fix2("ARRAY /dev/md0 UUID=" U0 "\n  num-devices=2 spares=1 name=a\n", D, D,
		   "ARRAY /dev/md0 UUID=" U0 "\n   name=a\n", 2);
	check_fix2("ARRAY /dev/md0 num-devices=2  spares=1 disks=2 UUID=" U0 "\n", D, D, "ARRAY /dev/md0 UUID=" U0 "\n", 3);
	/* one dropped, one set */
	check_fix2("ARRAY /dev/md0 num-devices=2 spares=1 UUID=" U0 "\n", D, 0,
		   "ARRAY /dev/md0 spares=0 UUID=" U0 "\n", 2);
	/* nothing to drop, or another array's */
	check_fix2("ARRAY /dev/md0 UUID=" U0 "\n", D, D, "ARRAY /dev/md0 UUID=" U0 "\n", 0);
	check_fix2("ARRAY /dev/md0 num-devices=2 UUID=" U1 "\n", D, D, "ARRAY /dev/md0 num-devices=2 UUID=" U1 "\n", 0);
	/* what is left still names the array, without a count */
	{
		int n = 0, sp = 0;
		char *got = mdadm_conf_fix_text("ARRAY /dev/md0 UUID=" U0 "\n  num-devices=2 spares=1\n", U0, D, D, NULL);

		CHECK_U64(mdadm_conf_lookup(got, U0, &n, &sp), 1);
		CHECK_U64(n, -1);
		CHECK_U64(sp, -1);
		free(got);
	}
}

static void already_right(void)
{
	check_same("ARRAY /dev/md0 num-devices=3 spares=0 UUID=" U0 "\n");
	/* "03" is 3 to mdadm */
	check_same("ARRAY /dev/md0 num-devices=03 UUID=" U0 "\n");
	/* nothing to change: no count at all */
	check_same("ARRAY /dev/md0 metadata=1.2 UUID=" U0 " name=host:0\n");
	check_same("");
	check_same("\n\n");
	check_same("# only a comment");
}

static void bytes_kept(void)
{
	/* CRLF: the '\r' stays where it was */
	check_fix("# mdadm.conf\r\nARRAY /dev/md0 UUID=" U0 " num-devices=2\r\n  spares=1\r\nMAILADDR root\r\n", 0,
		  "# mdadm.conf\r\nARRAY /dev/md0 UUID=" U0 " num-devices=3\r\n  spares=0\r\nMAILADDR root\r\n", 2);
	/* the UUID last before CRLF still matches */
	check_fix("ARRAY /dev/md0 num-devices=2 UUID=" U0 "\r\n", -1,
		  "ARRAY /dev/md0 num-devices=3 UUID=" U0 "\r\n", 1);
	/* no final newline, with and without CR */
	check_fix("ARRAY /dev/md0 UUID=" U0 " num-devices=2", -1, "ARRAY /dev/md0 UUID=" U0 " num-devices=3", 1);
	check_fix("ARRAY /dev/md0 UUID=" U0 " num-devices=2\r", -1, "ARRAY /dev/md0 UUID=" U0 " num-devices=3\r", 1);
	/* a line that is only "\r" ends the entry, as in mdadm (an unknown keyword) */
	check_same("ARRAY /dev/md0 UUID=" U0 "\n\r\n  num-devices=2\n");
	/* bytes that are not UTF-8 elsewhere are copied */
	check_fix("# \xff\xfe\nARRAY /dev/md0 num-devices=2 UUID=" U0 " name=\xe9t\xe9\n", -1,
		  "# \xff\xfe\nARRAY /dev/md0 num-devices=3 UUID=" U0 " name=\xe9t\xe9\n", 1);
}

static void comments(void)
{
	check_fix("ARRAY /dev/md0 num-devices=2 UUID=" U0 " # num-devices=9 spares=9\n", 0,
		  "ARRAY /dev/md0 num-devices=3 UUID=" U0 " # num-devices=9 spares=9\n", 1);
	/* a commented-out entry is a comment */
	check_same("#ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n");
	check_same("# ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n");
	/* a comment on a continuation line, the UUID in it does not count */
	check_same("ARRAY /dev/md0 num-devices=2\n  # UUID=" U0 "\n");
	check_fix("ARRAY /dev/md0 UUID=" U0 "\n  #num-devices=9\n  num-devices=2 #spares=9\n", 0,
		  "ARRAY /dev/md0 UUID=" U0 "\n  #num-devices=9\n  num-devices=3 #spares=9\n", 1);
	/* '#' inside a word is not a comment to mdadm */
	check_fix("ARRAY /dev/md0 name=a#b num-devices=2 UUID=" U0 "\n", -1,
		  "ARRAY /dev/md0 name=a#b num-devices=3 UUID=" U0 "\n", 1);
}

static void keywords(void)
{
	check_fix("arr /dev/md0 num-devices=2 UUID=" U0 "\n", -1, "arr /dev/md0 num-devices=3 UUID=" U0 "\n", 1);
	check_fix("array /dev/md0 num-devices=2 UUID=" U0 "\n", -1, "array /dev/md0 num-devices=3 UUID=" U0 "\n", 1);
	check_fix("Arra /dev/md0 num-devices=2 UUID=" U0 "\n", -1, "Arra /dev/md0 num-devices=3 UUID=" U0 "\n", 1);
	/* not ARRAY: too short, too long, another keyword */
	check_same("ar /dev/md0 num-devices=2 UUID=" U0 "\n");
	check_same("ARRAYS /dev/md0 num-devices=2 UUID=" U0 "\n");
	check_same("DEVICE /dev/md0 num-devices=2 UUID=" U0 "\n");
	check_same("DEVICE /dev/sd* num-devices=2\n");
	check_same("CREATE num-devices=2 UUID=" U0 "\n");
	/* the keyword must start the line: an attribute value is not one */
	check_same("MAILADDR root\n  ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n");
	/* a word starting with '/' names the device, whatever follows */
	check_same("ARRAY /dev/md/num-devices=2 UUID=" U0 "\n");
}

static void check_lookup(const char *text, int want, int want_n, int want_s)
{
	int n = -9, s = -9;

	CHECK_U64(mdadm_conf_lookup(text, U0, &n, &s), want);
	CHECK_U64(n, want_n);
	CHECK_U64(s, want_s);
}

static void lookup(void)
{
	check_lookup("ARRAY /dev/md0 level=raid1 num-devices=2 UUID=" U0 "\n", 1, 2, -1);
	check_lookup("ARRAY /dev/md0 UUID=" U0 "\n  num-devices=3 spares=1\n", 1, 3, 1);
	check_lookup("ARRAY /dev/md0 metadata=1.2 UUID=" U0 "\n", 1, -1, -1);
	check_lookup("arr /dev/md0 disks=4 UUID=79387934.AAAAD032.F56C6261.DE230A86\n", 1, 4, -1);
	/* the last count in the entry is the one mdadm keeps */
	check_lookup("ARRAY /dev/md0 num-devices=2 UUID=" U0 " disks=5\n", 1, 5, -1);
	check_lookup("ARRAY /dev/md0 num-devices=2 UUID=" U1 "\n", 0, -1, -1);
	check_lookup("# ARRAY /dev/md0 num-devices=2 UUID=" U0 "\n", 0, -1, -1);
	check_lookup("", 0, -1, -1);
	/* listed twice: the count, and the first entry's values */
	check_lookup("ARRAY /dev/md0 num-devices=2 UUID=" U0 "\nARRAY /dev/md1 num-devices=3 UUID=" U0 "\n", 2, 2, -1);
	CHECK_U64(mdadm_conf_lookup("ARRAY /dev/md0 UUID=" U0 "\n", U0, NULL, NULL), 1);
	CHECK_U64(mdadm_conf_lookup("ARRAY /dev/md0 UUID=" U0 "\n", "not-a-uuid", NULL, NULL), 0);
}

/* Write text to path with mode. 0 or -1. */
static int put_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(text);
	int r = 0;

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len || fchmod(fd, mode) < 0)
		r = -1;
	if (close(fd) < 0)
		r = -1;
	return r;
}

static void check_file(const char *path, const char *want)
{
	char *text = NULL, *msg = NULL;

	CHECK_U64(config_file_load(path, &text, &msg), 0);
	CHECK_STR(text, want);
	free(text);
	free(msg);
}

static ino_t inode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? 0 : st.st_ino;
}

static void update_file(const char *dir)
{
	static const char before[] = "# keep\nARRAY /dev/md0 num-devices=2 UUID=" U0 "\n";
	static const char after[] = "# keep\nARRAY /dev/md0 num-devices=3 UUID=" U0 "\n";
	char *path = xasprintf("%s/mdadm.conf", dir), *msg = NULL;
	struct stat st;
	bool changed = false;
	ino_t ino;

	CHECK(put_file(path, before, 0600) == 0);
	/* dry run: says so, writes nothing */
	CHECK_U64(mdadm_conf_update(path, U0, 3, -1, true, &changed, &msg), 0);
	CHECK(changed);
	CHECK(msg == NULL);
	check_file(path, before);
	/* the real thing: the mode is kept, no temporary file left */
	CHECK_U64(mdadm_conf_update(path, U0, 3, -1, false, &changed, &msg), 0);
	CHECK(changed);
	CHECK(msg == NULL);
	check_file(path, after);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	/* again: nothing to change, the file is not even rewritten */
	ino = inode_of(path);
	CHECK_U64(mdadm_conf_update(path, U0, 3, -1, false, &changed, &msg), 0);
	CHECK(!changed);
	CHECK(ino != 0 && inode_of(path) == ino);
	check_file(path, after);
	/* through RDCTL_MDADM_CONF */
	CHECK(setenv("RDCTL_MDADM_CONF", path, 1) == 0);
	CHECK_STR(mdadm_conf_path(), path);
	CHECK_U64(mdadm_conf_update(NULL, U0, 2, -1, false, &changed, &msg), 0);
	CHECK(changed);
	check_file(path, before);
	CHECK(unlink(path) == 0);
	/* no file: nothing to do, nothing made (never a file in /etc) */
	CHECK(mdadm_conf_path() == NULL);
	CHECK_U64(mdadm_conf_update(NULL, U0, 3, -1, false, &changed, &msg), 0);
	CHECK(!changed);
	CHECK(msg == NULL);
	CHECK(!path_exists(path));
	CHECK(unsetenv("RDCTL_MDADM_CONF") == 0);
	/* a given path that does not exist: the same */
	CHECK_U64(mdadm_conf_update(path, U0, 3, -1, false, &changed, &msg), 0);
	CHECK(!changed);
	CHECK(!path_exists(path));
	/* not a UUID */
	CHECK_U64(mdadm_conf_update(path, "md0", 3, -1, false, &changed, &msg), -EINVAL);
	CHECK_STR(msg, "cannot fix mdadm.conf: md0 is not an array UUID");
	free(msg);
	/* cannot be read: a directory */
	msg = NULL;
	CHECK_U64(mdadm_conf_update(dir, U0, 3, -1, false, &changed, &msg), -EISDIR);
	CHECK(msg && strstr(msg, dir));
	CHECK(!changed);
	free(msg);
	free(path);
}

/* An executable script at dir/name with body after "#!/bin/sh\n"; malloc'd path. */
static char *fake_tool(const char *dir, const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", dir, name), *text = xasprintf("#!/bin/sh\n%s", body);

	CHECK(put_file(path, text, 0755) == 0);
	free(text);
	return path;
}

/* initramfs_refresh() with the fakes set up: its result, *cmd and *msg. */
static int refresh(bool dry_run, char **cmd, char **msg)
{
	free(*cmd);
	free(*msg);
	return initramfs_refresh(dry_run, cmd, msg);
}

static void initramfs(const char *dir)
{
	/* the script records its arguments, one a line, next to itself */
	char *ok = fake_tool(dir, "update-initramfs", "printf '%s\\n' \"$@\" >\"$0.args\"\necho finished\n");
	char *bad = fake_tool(dir, "failing", "echo 'update-initramfs: Generating /boot/initrd.img'\n"
				  "echo 'E: mkinitramfs failure cpio 141' >&2\nexit 2\n");
	char *slow = fake_tool(dir, "slow", "exec sleep 20\n");
	char *broken = xasprintf("%s/broken", dir);
	char *dracut = fake_tool(dir, "dracut", "printf '%s\\n' \"$@\" >\"$0.args\"\n");
	char *hook = xasprintf("%s/hook-mdadm", dir), *nothing = xasprintf("%s/nothing", dir);
	char *args = xasprintf("%s.args", ok), *dargs = xasprintf("%s.args", dracut);
	char *cmd = NULL, *msg = NULL, *want;
	const char *const files[] = { ok, bad, slow, dracut, hook };

	/* a directory: exec fails (not a script whose interpreter is missing:
	 * valgrind, which the checks run this under, dies of that one) */
	CHECK(mkdir(broken, 0755) == 0);
	CHECK(put_file(hook, "#!/bin/sh\n", 0755) == 0);
	CHECK(setenv("RDCTL_UPDATE_INITRAMFS", ok, 1) == 0);
	CHECK(setenv("RDCTL_INITRAMFS_HOOK", hook, 1) == 0);
	CHECK(setenv("RDCTL_DRACUT", nothing, 1) == 0);

	/* dry run: the command, not run */
	CHECK_U64(refresh(true, &cmd, &msg), 0);
	CHECK_STR(cmd, "update-initramfs -u -k all");
	CHECK(msg == NULL);
	CHECK(!path_exists(args));
	/* run, with every kernel's image */
	CHECK_U64(refresh(false, &cmd, &msg), 0);
	CHECK_STR(cmd, "update-initramfs -u -k all");
	CHECK(msg == NULL);
	check_file(args, "-u\n-k\nall\n");
	CHECK(unlink(args) == 0);

	/* it fails: its last line, and what to run */
	CHECK(setenv("RDCTL_UPDATE_INITRAMFS", bad, 1) == 0);
	CHECK_U64(refresh(false, &cmd, &msg), -EIO);
	CHECK_STR(cmd, "update-initramfs -u -k all");
	CHECK_STR(msg, "update-initramfs -u -k all failed (exit 2): E: mkinitramfs failure cpio 141; "
		       "the initramfs still has the old mdadm.conf: run update-initramfs -u -k all");
	/* it cannot be run */
	CHECK(setenv("RDCTL_UPDATE_INITRAMFS", broken, 1) == 0);
	CHECK_U64(refresh(false, &cmd, &msg), -EIO);
	want = xasprintf("update-initramfs -u -k all failed (exit 127): cannot run %s; "
			 "the initramfs still has the old mdadm.conf: run update-initramfs -u -k all", broken);
	CHECK_STR(msg, want);
	free(want);
	/* it hangs */
	CHECK(setenv("RDCTL_UPDATE_INITRAMFS", slow, 1) == 0);
	CHECK(setenv("RDCTL_INITRAMFS_TIMEOUT", "1", 1) == 0);
	CHECK_U64(refresh(false, &cmd, &msg), -ETIMEDOUT);
	CHECK_STR(msg, "update-initramfs -u -k all did not finish in 1 s (stopped with SIGTERM); "
		       "the initramfs still has the old mdadm.conf: run update-initramfs -u -k all");
	CHECK(unsetenv("RDCTL_INITRAMFS_TIMEOUT") == 0);

	/* no mdadm hook: the initramfs has no mdadm.conf, nothing to do */
	CHECK(setenv("RDCTL_UPDATE_INITRAMFS", ok, 1) == 0);
	CHECK(setenv("RDCTL_INITRAMFS_HOOK", nothing, 1) == 0);
	CHECK_U64(refresh(false, &cmd, &msg), 0);
	CHECK(cmd == NULL);
	CHECK(msg == NULL);
	CHECK(!path_exists(args));
	/* no update-initramfs either */
	CHECK(setenv("RDCTL_UPDATE_INITRAMFS", nothing, 1) == 0);
	CHECK(setenv("RDCTL_INITRAMFS_HOOK", hook, 1) == 0);
	CHECK_U64(refresh(false, &cmd, &msg), 0);
	CHECK(cmd == NULL);
	/* dracut: the admin's command, not run */
	CHECK(setenv("RDCTL_DRACUT", dracut, 1) == 0);
	CHECK_U64(refresh(false, &cmd, &msg), 1);
	CHECK_STR(cmd, "dracut -f --regenerate-all");
	CHECK(msg == NULL);
	CHECK(!path_exists(dargs));

	free(cmd);
	free(msg);
	CHECK(unsetenv("RDCTL_UPDATE_INITRAMFS") == 0);
	CHECK(unsetenv("RDCTL_INITRAMFS_HOOK") == 0);
	CHECK(unsetenv("RDCTL_DRACUT") == 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		CHECK(unlink(files[i]) == 0);
	CHECK(rmdir(broken) == 0);
	free(ok);
	free(bad);
	free(slow);
	free(broken);
	free(dracut);
	free(hook);
	free(nothing);
	free(args);
	free(dargs);
}

void test_mdadm_conf(const char *tmpdir)
{
	char *dir = xasprintf("%s/mdadm_conf", tmpdir);

	simple_line();
	continuation();
	only_this_array();
	uuid_forms();
	spares();
	drop();
	already_right();
	bytes_kept();
	comments();
	keywords();
	lookup();
	CHECK(mkdir(dir, 0755) == 0);
	if (path_exists(dir)) {
		update_file(dir);
		initramfs(dir);
		CHECK(rmdir(dir) == 0);
	}
	free(dir);
}
