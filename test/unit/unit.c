// SPDX-License-Identifier: GPL-2.0
/* Runs every unit test; prints "unit: N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>

#include "fake_tree.h"
#include "unit.h"

int unit_passed, unit_failed;

int main(void)
{
	char tmpl[] = "/tmp/rdctl-unit.XXXXXX";
	char *root = mkdtemp(tmpl);

	if (!root) {
		perror("mkdtemp");
		return 1;
	}
	if (fake_tree_build(root) < 0) {
		fprintf(stderr, "cannot build the fake tree in %s\n", root);
		return 1;
	}
	fake_tree_env(root);
	test_size();
	test_list_table();
	test_sysfs(root);
	test_warnings(root);
	test_json(root);
	test_config();
	test_member_size(root);
	test_config_edit(root);
	test_mdadm_conf(root);
	test_md_super();
	test_build_id();
	test_kernel_bugs();
	test_member(root);
	test_compressed(root);
	if (fake_tree_remove(root) < 0)
		unit_failed++;
	printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}
