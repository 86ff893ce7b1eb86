/* SPDX-License-Identifier: GPL-2.0 */
/* A tiny assert harness: every CHECK counts as one test. */
#ifndef RDCTL_UNIT_H
#define RDCTL_UNIT_H

#include <stdio.h>
#include <string.h>

extern int unit_passed, unit_failed;

#define CHECK(cond) do {						\
	if (cond) {							\
		unit_passed++;						\
	} else {							\
		unit_failed++;						\
		fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if ((g_ == NULL && w_ == NULL) || (g_ && w_ && !strcmp(g_, w_))) {	\
		unit_passed++;						\
	} else {							\
		unit_failed++;						\
		fprintf(stderr, "FAIL %s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
			#got, g_ ? g_ : "(null)", w_ ? w_ : "(null)");	\
	}								\
} while (0)

#define CHECK_U64(got, want) do {					\
	unsigned long long g_ = (got), w_ = (want);			\
	if (g_ == w_) {							\
		unit_passed++;						\
	} else {							\
		unit_failed++;						\
		fprintf(stderr, "FAIL %s:%d: %s is %llu, want %llu\n", __FILE__, __LINE__, \
			#got, g_, w_);					\
	}								\
} while (0)

void test_size(void);
void test_list_table(void);
void test_sysfs(const char *root);
void test_warnings(const char *root);
void test_json(const char *root);
void test_config(void);
void test_member_size(const char *root);
void test_config_edit(const char *tmpdir);
void test_mdadm_conf(const char *tmpdir);
void test_md_super(void);
void test_build_id(void);
void test_kernel_bugs(void);
void test_member(const char *root);
void test_compressed(const char *root);

#endif
