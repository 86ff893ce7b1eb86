// SPDX-License-Identifier: GPL-2.0
/* mkfaketree DIR: build the fake sysfs/proc/dev tree of fake_tree.h in DIR. */
#include <stdio.h>

#include "fake_tree.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: mkfaketree DIR\n", stderr);
		return 2;
	}
	return fake_tree_build(argv[1]) < 0 ? 1 : 0;
}
