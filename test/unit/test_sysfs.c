// SPDX-License-Identifier: GPL-2.0
/* The sysfs, /proc and mount readers against the fake tree (fake_tree.h). */
#include <errno.h>
#include <stdlib.h>

#include "rd/control.h"
#include "fake_tree.h"
#include "md/md.h"
#include "lib/meminfo.h"
#include "lib/mounts.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "unit.h"
#include "status/view.h"

static void test_names(void)
{
	unsigned i = 99;

	CHECK(rd_parse_name("rd0", &i) && i == 0);
	CHECK(rd_parse_name("/dev/rd12", &i) && i == 12);
	CHECK(rd_parse_name("rd4294967295", &i) && i == 4294967295U);
	CHECK(!rd_parse_name("rd4294967296", &i));
	CHECK(!rd_parse_name("rd", &i));
	CHECK(!rd_parse_name("rd01", &i));
	CHECK(!rd_parse_name("rd-1", &i));
	CHECK(!rd_parse_name("rd1x", &i));
	CHECK(!rd_parse_name("sda", &i));
	CHECK(!rd_parse_name("/dev/", &i));
	CHECK(!rd_parse_name("dev/rd0", &i));
	CHECK(!rd_parse_name("", &i));
	CHECK(!rd_parse_name(NULL, &i));
	CHECK(md_name_is_rd("rd3"));
	CHECK(!md_name_is_rd("ram0"));
	CHECK(!md_name_is_rd("sdb1"));
}

static void test_disks(void)
{
	struct rd_disk *d;
	size_t n;
	struct rd_disk one;

	CHECK(rd_disks_list(&d, &n) == 0);
	CHECK_U64(n, 3);
	if (n != 3)
		return;
	CHECK_STR(d[0].name, "rd0");
	CHECK_U64(d[0].size, 2ULL << 30);
	CHECK(d[0].has_allocated);
	CHECK_U64(d[0].allocated, 512ULL << 20);
	CHECK(d[0].preallocated == 0);
	CHECK(d[0].has_devnum && d[0].major == 252 && d[0].minor == 0);
	CHECK_U64(d[0].nholders, 1);
	CHECK_STR(d[0].nholders ? d[0].holders[0] : NULL, "md0");
	CHECK_STR(d[0].mountpoint, NULL);

	CHECK_STR(d[1].name, "rd1");
	CHECK_U64(d[1].size, 128ULL << 20);
	CHECK(d[1].preallocated == 1);
	CHECK_U64(d[1].nholders, 0);
	CHECK_STR(d[1].mountpoint, "/mnt/rd one");

	CHECK_STR(d[2].name, "rd2");
	CHECK_U64(d[2].size, 1ULL << 20);
	CHECK(!d[2].has_allocated);
	CHECK(d[2].preallocated == -1);
	rd_disks_free(d, n);

	CHECK(rd_disk_read(7, &one) == -ENODEV);
	CHECK(rd_disk_read(1, &one) == 0);
	CHECK_STR(one.name, "rd1");
	rd_disk_clear(&one);
}

static void test_arrays(void)
{
	struct md_array *a;
	struct md_array md1;
	size_t n;

	CHECK(md_arrays_with_rd(&a, &n) == 0);
	CHECK_U64(n, 1);	/* md1 has no rd member */
	if (n != 1)
		return;
	CHECK_STR(a[0].name, "md0");
	CHECK_STR(a[0].level, "raid1");
	CHECK_STR(a[0].array_state, "active");
	CHECK(a[0].raid_disks == 3);
	CHECK(a[0].degraded == 0);
	CHECK_STR(a[0].sync_action, "resync");
	CHECK(md_sync_running(&a[0]));
	CHECK(a[0].has_sync && a[0].sync_done == 1048576 && a[0].sync_total == 4194304);
	CHECK(md_sync_percent(&a[0]) > 24.99 && md_sync_percent(&a[0]) < 25.01);
	/* 3145728 sectors left = 1.5 GiB at 100 MiB/s = 15 s */
	CHECK(md_sync_eta(&a[0]) == 15);
	CHECK_U64(a[0].nmembers, 3);
	if (a[0].nmembers == 3) {
		CHECK_STR(a[0].members[0].name, "rd0");
		CHECK(md_is_fast(&a[0].members[0]) && a[0].members[0].in_sync && !a[0].members[0].write_mostly);
		CHECK(a[0].members[0].slot == 0);
		CHECK_STR(a[0].members[1].name, "sdb");
		CHECK(!md_is_fast(&a[0].members[1]) && a[0].members[1].write_mostly);
		CHECK_STR(a[0].members[1].state, "in_sync,write_mostly");
		CHECK_STR(a[0].members[2].name, "sdc");
		CHECK(!md_is_fast(&a[0].members[2]) && !a[0].members[2].write_mostly && a[0].members[2].in_sync);
		CHECK_STR(md_member_role(&a[0].members[2]), "active");
	}
	md_arrays_free(a, n);

	CHECK(md_array_read("md1", &md1) == 0);
	CHECK(!md_sync_running(&md1));
	CHECK(!md1.has_sync && !md1.has_speed);
	CHECK(md_sync_percent(&md1) < 0 && md_sync_eta(&md1) < 0);
	CHECK(md1.members[0].slot == -1);
	md_array_clear(&md1);
	CHECK(md_array_read("md9", &md1) == -ENODEV);
}

static void test_views(void)
{
	struct rd_disk d;
	struct disk_view v;
	char *s;

	CHECK(rd_disk_read(0, &d) == 0);
	CHECK(disk_view_read(&d, &v) == 0);
	CHECK_STR(v.mirror, "md0");
	CHECK_STR(v.role, "active");
	CHECK_STR(v.array_state, "active");
	CHECK_STR(v.sync_action, "resync");
	disk_view_clear(&v);
	rd_disk_clear(&d);

	CHECK(rd_disk_read(2, &d) == 0);
	CHECK(disk_view_read(&d, &v) == 0);
	CHECK_STR(v.mirror, NULL);
	CHECK_STR(v.role, NULL);
	disk_view_clear(&v);
	rd_disk_clear(&d);

	s = busy_message(0);
	CHECK_STR(s, "rd0 is the RAM member of md0: take it out with rdctl --release /dev/md0 (until the next rdctl --restore) or rdctl --revert /dev/md0 (for good)");
	free(s);
	s = busy_message(1);
	CHECK_STR(s, "rd1 is mounted on /mnt/rd one: unmount it first");
	free(s);
	s = busy_message(2);
	CHECK_STR(s, "rd2 is open by a process: see fuser -v /dev/rd2");
	free(s);

	s = eta_str(15);
	CHECK_STR(s, "15s");
	free(s);
	s = eta_str(192);
	CHECK_STR(s, "3m12s");
	free(s);
	s = eta_str(3720);
	CHECK_STR(s, "1h02m");
	free(s);
	s = eta_str(-1);
	CHECK_STR(s, "unknown");
	free(s);
}

static void test_proc(const char *root)
{
	struct meminfo mi;
	struct module_info m;
	char *where, esc[] = "/a\\040b\\011c\\134d";

	CHECK(meminfo_read(&mi) == 0);
	CHECK(mi.has_total && mi.total == 16ULL << 30);
	CHECK(mi.has_available && mi.available == 1ULL << 30);

	CHECK(mount_point_of(252, 1, &where) == 1);
	CHECK_STR(where, "/mnt/rd one");
	free(where);
	CHECK(mount_point_of(252, 0, &where) == 0);
	CHECK_STR(where, NULL);
	mountinfo_unescape(esc);
	CHECK_STR(esc, "/a b\tc\\d");

	module_info_read(&m);
	CHECK(m.loaded);
	CHECK_STR(m.version, RDCTL_BUILD_ID);
	CHECK(!m.control_present);
	module_info_clear(&m);

	/* a meminfo without MemAvailable (very old kernels) */
	CHECK(fake_write(root, "proc/meminfo", "MemTotal: 1024 kB\n") == 0);
	CHECK(meminfo_read(&mi) == 0);
	CHECK(mi.has_total && mi.total == 1024 * 1024 && !mi.has_available);
	CHECK(fake_write(root, "proc/meminfo",
			 "MemTotal:       16777216 kB\nMemAvailable:    1048576 kB\n") == 0);
}

void test_sysfs(const char *root)
{
	test_names();
	test_disks();
	test_arrays();
	test_views();
	test_proc(root);
}
