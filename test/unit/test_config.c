// SPDX-License-Identifier: GPL-2.0
/* The /etc/rdmirror.conf parser: every good and bad line form, line numbers. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdmirror.h>

#include "lib/config.h"

#include "unit.h"
#include "lib/util.h"

static void good_lines(void)
{
	struct config c;

	config_parse_text("/etc/rdmirror.conf",
			  "# ARRAY  SIZE  OPTIONS\n"
			  "\n"
			  "   \t  \n"
			  "UUID=79387934:AAAAD032:f56c6261:de230a86   auto   prealloc\n"
			  "/dev/md/data 2G   # a comment after the line\n"
			  "md1\t512\n"
			  "/dev/md10 1TiB PREALLOC\n"
			  "/dev/md0 4096K\r\n"
			  "#md2 auto\n"
			  "md3 AUTO", &c);
	CHECK_U64(c.nerrs, 0);
	CHECK_U64(c.n, 6);
	if (c.n == 6) {
		CHECK(c.v[0].kind == CONF_UUID);
		CHECK_STR(c.v[0].uuid, "79387934:aaaad032:f56c6261:de230a86");
		CHECK(c.v[0].auto_size && c.v[0].prealloc);
		CHECK_U64(c.v[0].line, 4);
		CHECK(c.v[1].kind == CONF_MDNAME);
		CHECK_STR(c.v[1].name, "data");
		CHECK_U64(c.v[1].size, 2ULL << 30);
		CHECK(!c.v[1].auto_size && !c.v[1].prealloc);
		CHECK(c.v[2].kind == CONF_DEVICE);
		CHECK_STR(c.v[2].name, "md1");
		CHECK_U64(c.v[2].size, 512ULL << 20);
		CHECK_STR(c.v[3].name, "md10");
		CHECK_U64(c.v[3].size, 1ULL << 40);
		CHECK(c.v[3].prealloc);
		CHECK_STR(c.v[4].name, "md0");
		CHECK_STR(c.v[4].spec, "/dev/md0");
		CHECK_U64(c.v[4].size, 4ULL << 20);
		CHECK_STR(c.v[5].name, "md3");
		CHECK(c.v[5].auto_size);
		CHECK_U64(c.v[5].line, 10);
	}
	config_free(&c);
	config_parse_text("empty", "", &c);
	CHECK_U64(c.n + c.nerrs, 0);
	config_free(&c);
}

/* one bad line between two good ones: the error names the line, the good ones stay */
/* compress=NAME, any case: the compressor of the line; none without it */
static void compressed_line(void)
{
	struct config c;

	config_parse_text("f", "md0 auto compress=ZSTD\nmd1 8G compress=lz4\nmd2 auto\n", &c);
	CHECK_U64(c.nerrs, 0);
	CHECK(c.n == 3 && c.v[0].comp == RDMIRROR_COMP_ZSTD && c.v[1].comp == RDMIRROR_COMP_LZ4 &&
	      c.v[2].comp == RDMIRROR_COMP_NONE);
	config_free(&c);
}

static void bad_line(const char *line, const char *want)
{
	char *text = xasprintf("md0 auto\n%s\nmd1 1G\n", line);
	struct config c;

	config_parse_text("f", text, &c);
	CHECK_U64(c.n, 2);
	CHECK_U64(c.nerrs, 1);
	if (c.nerrs == 1) {
		CHECK_U64(c.errs[0].line, 2);
		CHECK_STR(c.errs[0].message, want);
	}
	config_free(&c);
	free(text);
}

/* the SIZE column goes through size_parse(): util-linux units, fractions */
static void sizes(void)
{
	struct config c;

	config_parse_text("f", "md0 4096KB\nmd1 1.5G\nmd2 0.5M prealloc\nmd3 1.5\n", &c);
	CHECK_U64(c.nerrs, 0);
	CHECK_U64(c.n, 4);
	if (c.n == 4) {
		CHECK_U64(c.v[0].size, 4096000);
		CHECK_U64(c.v[1].size, 1610612736ULL);
		CHECK_U64(c.v[2].size, 524288);
		CHECK(c.v[2].prealloc);
		CHECK_U64(c.v[3].size, 1572864);
	}
	config_free(&c);
}

/* the same array written twice: md0 and /dev/md0, a UUID in two letter cases */
static void textual_duplicates(void)
{
	struct config c;

	config_parse_text("f",
			  "md0 auto\n"
			  "UUID=79387934:aaaad032:f56c6261:de230a86 auto\n"
			  "/dev/md0 2G\n"
			  "uuid=79387934:AAAAD032:F56C6261:DE230A86 1G\n"
			  "/dev/md/data 1G\n"
			  "/dev/md/data 2G\n", &c);
	CHECK_U64(c.n, 3);
	CHECK_U64(c.nerrs, 3);
	if (c.nerrs == 3) {
		CHECK_U64(c.errs[0].line, 3);
		CHECK_STR(c.errs[0].message, "/dev/md0 is already configured on line 1");
		CHECK_U64(c.errs[1].line, 4);
		CHECK_STR(c.errs[1].message,
			  "uuid=79387934:AAAAD032:F56C6261:DE230A86 is already configured on line 2");
		CHECK_U64(c.errs[2].line, 6);
		CHECK_STR(c.errs[2].message, "/dev/md/data is already configured on line 5");
	}
	config_free(&c);
}

/* write bytes (NULs included) to a new temporary file; its path, malloc'd */
static char *temp_file(const char *bytes, size_t len)
{
	char tmpl[] = "/tmp/rdctl-conf.XXXXXX";
	int fd = mkstemp(tmpl);

	CHECK(fd >= 0);
	if (fd < 0)
		return NULL;
	CHECK(write(fd, bytes, len) == (ssize_t)len);
	close(fd);
	return xstrdup(tmpl);
}

/* a NUL byte is an error of its line, not the silent end of the file */
static void nul_bytes(void)
{
	static const char text[] = "md0 auto\nmd1 1G # \0 junk\nmd2 2G\n\0\nmd3 1G\0";
	char *path = temp_file(text, sizeof(text) - 1);
	struct config c;

	if (!path)
		return;
	CHECK(config_read(path, &c) == 0);
	CHECK_U64(c.n, 2);
	if (c.n == 2) {
		CHECK_STR(c.v[0].name, "md0");
		CHECK_STR(c.v[1].name, "md2");
		CHECK_U64(c.v[1].line, 3);
	}
	CHECK_U64(c.nerrs, 3);
	if (c.nerrs == 3) {
		CHECK_U64(c.errs[0].line, 2);
		CHECK_STR(c.errs[0].message, "contains a NUL byte: this is not a text file, or it is damaged");
		CHECK_U64(c.errs[1].line, 4);
		CHECK_U64(c.errs[2].line, 5);
	}
	config_free(&c);
	unlink(path);
	free(path);

	/* the same file without the NULs reads as before */
	path = temp_file("md0 auto\r\n\nmd1 1G", strlen("md0 auto\r\n\nmd1 1G"));
	if (!path)
		return;
	CHECK(config_read(path, &c) == 0);
	CHECK_U64(c.n, 2);
	CHECK_U64(c.nerrs, 0);
	if (c.n == 2)
		CHECK_U64(c.v[1].line, 3);
	config_free(&c);
	unlink(path);
	free(path);

	/* no end: refused, never read into memory without a bound */
	CHECK(config_read("/dev/zero", &c) == -EFBIG);
	CHECK_U64(c.n + c.nerrs, 0);
	config_free(&c);
	CHECK(config_read("/nonexistent/rdmirror.conf", &c) == -ENOENT);
	config_free(&c);
}

/* names[] as a system resolves the lines; all strings malloc'd */
static char **names_of(const char *const *v, size_t n)
{
	char **names = xcalloc(n, sizeof(*names));

	for (size_t i = 0; i < n; i++)
		names[i] = v[i] ? xstrdup(v[i]) : NULL;
	return names;
}

static void free_names_n(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * md0 and UUID=... that name the same array: known only once the lines are
 * resolved on the running system. Both lines are dropped, one error names them.
 */
static void resolved_duplicates(void)
{
	static const char text[] =
		"md0 auto\n"
		"/dev/md/data 2G\n"
		"# a comment\n"
		"UUID=79387934:AAAAD032:f56c6261:de230a86 auto\n"
		"md1 1G\n"
		"md7 auto\n";
	static const char *const two[] = { "md0", "md5", "md0", "md1", NULL };
	static const char *const three[] = { "md0", "md0", "md0", "md1", "md1" };
	static const char *const none[] = { "md0", "md5", NULL, NULL, "md1" };
	struct config c;
	char **names;

	config_parse_text("/etc/rdmirror.conf", text, &c);
	CHECK_U64(c.n, 5);
	names = names_of(two, 5);
	CHECK_U64(config_drop_same_arrays(&c, names), 2);
	CHECK_U64(c.n, 3);
	if (c.n == 3) {
		CHECK_U64(c.v[0].line, 2);
		CHECK_STR(names[0], "md5");
		CHECK_U64(c.v[1].line, 5);
		CHECK_STR(names[1], "md1");
		CHECK_U64(c.v[2].line, 6);
		CHECK_STR(names[2], NULL);
	}
	CHECK_U64(c.nerrs, 1);
	if (c.nerrs == 1) {
		CHECK_U64(c.errs[0].line, 0);
		CHECK_STR(c.errs[0].message,
			  "lines 1 and 4 both name /dev/md0 (md0, UUID=79387934:AAAAD032:f56c6261:de230a86): "
			  "neither is used; keep one of them");
	}
	free_names_n(names, c.n);
	config_free(&c);

	config_parse_text("/etc/rdmirror.conf", text, &c);
	names = names_of(three, 5);
	CHECK_U64(config_drop_same_arrays(&c, names), 5);
	CHECK_U64(c.n, 0);
	CHECK_U64(c.nerrs, 2);
	if (c.nerrs == 2) {
		CHECK_STR(c.errs[0].message,
			  "lines 1, 2 and 4 all name /dev/md0 (md0, /dev/md/data, UUID=79387934:AAAAD032:f56c6261:de230a86): "
			  "none is used; keep one of them");
		CHECK_STR(c.errs[1].message, "lines 5 and 6 both name /dev/md1 (md1, md7): neither is used; keep one of them");
	}
	free_names_n(names, c.n);
	config_free(&c);

	config_parse_text("/etc/rdmirror.conf", text, &c);
	names = names_of(none, 5);
	CHECK_U64(config_drop_same_arrays(&c, names), 0);
	CHECK_U64(c.n, 5);
	CHECK_U64(c.nerrs, 0);
	free_names_n(names, c.n);
	config_free(&c);
}

/* recovery_speed: md's limits during a warm-up's recovery (defaults without the line) */
static void speeds(void)
{
	struct config c;
	uint64_t min, max;

	CHECK(config_recovery_speed(NULL, &min, &max));
	CHECK_U64(min, CONFIG_SPEED_MIN);
	CHECK_U64(max, CONFIG_SPEED_MAX);
	config_parse_text("f", "md0 auto\n", &c);
	CHECK(config_recovery_speed(&c, &min, &max));
	CHECK_U64(min, 100ULL << 20);
	CHECK_U64(max, 4ULL << 30);
	config_free(&c);
	config_parse_text("f", "recovery_speed 50M 1G\nmd0 auto\n", &c);
	CHECK_U64(c.nerrs, 0);
	CHECK(config_recovery_speed(&c, &min, &max));
	CHECK_U64(min, 50ULL << 20);
	CHECK_U64(max, 1ULL << 30);
	config_free(&c);
	config_parse_text("f", "RECOVERY_SPEED off\n", &c);
	CHECK_U64(c.nerrs, 0);
	CHECK(!config_recovery_speed(&c, &min, &max));
	config_free(&c);
	bad_line("recovery_speed 1G", "expected 'recovery_speed MIN MAX' (per second) or 'recovery_speed off', for example recovery_speed 100M 4G");
	bad_line("recovery_speed 2G 1G", "recovery_speed MIN 2G is above MAX 1G");
	bad_line("recovery_speed 1G 4P", "invalid recovery_speed MAX '4P': at most 2T per second");
	bad_line("recovery_speed 5K 1G", "invalid recovery_speed MIN: invalid size '5K': 5120 bytes is not a multiple of 4 KiB (4096 bytes); "
		 "the nearest valid sizes are 4096 (4 KiB) and 8192 (8 KiB)");
	config_parse_text("f", "recovery_speed off\nrecovery_speed 1G 2G\n", &c);
	CHECK_U64(c.nerrs, 1);
	if (c.nerrs == 1)
		CHECK_STR(c.errs[0].message, "recovery_speed is set already on line 1");
	config_free(&c);
}

void test_config(void)
{
	good_lines();
	speeds();
	sizes();
	textual_duplicates();
	nul_bytes();
	resolved_duplicates();
	bad_line("md5", "'md5' has no size: expected ARRAY SIZE [prealloc], SIZE 'auto' or a size such as 2G");
	bad_line("sda auto", "invalid array 'sda': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("/dev/sda auto", "invalid array '/dev/sda': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("md01 auto", "invalid array 'md01': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("mdx auto", "invalid array 'mdx': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("/dev/md/ auto", "invalid array '/dev/md/': expected /dev/md/NAME");
	bad_line("/dev/md/a/b auto", "invalid array '/dev/md/a/b': expected /dev/md/NAME");
	bad_line("UUID=1234 auto", "invalid UUID '1234': expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it");
	bad_line("UUID=79387934:aaaad032:f56c6261:de230a8g auto",
		 "invalid UUID '79387934:aaaad032:f56c6261:de230a8g': expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it");
	bad_line("UUID=79387934-aaaad032-f56c6261-de230a86 auto",
		 "invalid UUID '79387934-aaaad032-f56c6261-de230a86': expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it");
	bad_line("md2 0", "invalid size '0': the size must be larger than 0; SIZE may also be 'auto'");
	bad_line("md2 5K", "invalid size '5K': 5120 bytes is not a multiple of 4 KiB (4096 bytes); "
		 "the nearest valid sizes are 4096 (4 KiB) and 8192 (8 KiB); SIZE may also be 'auto'");
	bad_line("md2 2X", "invalid size '2X': unknown unit 'X' (K, M, G, T, P, E or KiB, MiB, ...: powers of 1024; "
		 "KB, MB, ...: powers of 1000; B: bytes; none: MiB); SIZE may also be 'auto'");
	bad_line("md2 -1", "invalid size '-1': a size cannot be negative; SIZE may also be 'auto'");
	/* the SIZE column is read by size_parse(), as --attach reads it */
	bad_line("md2 1MB", "invalid size '1MB': 1000000 bytes is not a multiple of 4 KiB (4096 bytes); "
		 "the nearest valid sizes are 999424 (976 KiB) and 1003520 (980 KiB); SIZE may also be 'auto'");
	bad_line("md2 auto prealloc fast", "unknown option 'fast': the options are prealloc, member=PATH and compress=lz4|zstd");
	bad_line("md2 auto compress=gzip", "compress=gzip: unknown compressor, expected lz4 or zstd");
	bad_line("md2 auto compress=lz4 compress=zstd", "compress= given twice (lz4 and zstd)");
	bad_line("md2 auto compress=lz4 prealloc",
		 "compress=lz4 is for a RAM member: not with prealloc (a compressed disk's memory is what its data takes)");
	bad_line("md2 auto compress=zstd member=/dev/disk/by-id/x", "compress=zstd is for a RAM member: not with member=");
	compressed_line();
	bad_line("/dev/md0 2G", "/dev/md0 is already configured on line 1");
	bad_line("a b c d e f g h i j k l m n o p q", "too many words: expected ARRAY SIZE [prealloc]");
	CHECK(config_uuid_valid("79387934:aaaad032:f56c6261:de230a86"));
	CHECK(!config_uuid_valid("79387934:aaaad032:f56c6261:de230a86:"));
	CHECK(!config_uuid_valid(""));
}
