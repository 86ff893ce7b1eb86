# SPDX-License-Identifier: GPL-2.0
# The libFuzzer harnesses of test/fuzz/, built by test/fuzz/run as
#   make -C utils -f test/fuzz/fuzz.mk FUZZ_OUT=DIR fuzz-build
# It reads utils/Makefile for the sources (LIB_SRCS), the preprocessor flags
# and the libraries, and builds rdctl's objects again with clang and the
# sanitizers into FUZZ_OUT/obj/ (never utils/*/*.o, which gcc builds). Each
# test/fuzz/fuzz_TARGET.c becomes FUZZ_OUT/bin/fuzz_TARGET.
#   FUZZ_SRC      where the utils sources are taken from (default utils/);
#                 a patched copy builds a planted defect away from the tree
#   FUZZ_TARGETS  which harnesses (default: all)

FUZZ_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

include Makefile

FUZZ_OUT ?= $(abspath ../build/fuzz)
FUZZ_SRC ?= $(CURDIR)
FUZZ_CC ?= clang
FUZZ_CFLAGS ?= -g -O1 -fno-omit-frame-pointer
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
# the harnesses' own warnings (rdctl's objects get clang's defaults)
FUZZ_WARN := -Wall -Wextra -Werror=implicit-function-declaration
FUZZ_TARGETS ?= $(patsubst $(FUZZ_DIR)/fuzz_%.c,%,$(wildcard $(FUZZ_DIR)/fuzz_*.c))

# (with the tests' seams: fuzz_proc_files reads a stand-in /proc)
FUZZ_OBJS := $(addprefix $(FUZZ_OUT)/obj/,$(LIB_OBJS) $(SEAMS_ON))
FUZZ_LIB := $(FUZZ_OUT)/librdctl-fuzz.a
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/bin/fuzz_,$(FUZZ_TARGETS))
FUZZ_HDRS := $(wildcard $(FUZZ_SRC)/*/*.h) ../module/uapi/rdmirror.h

fuzz-build: $(FUZZ_BINS)

$(FUZZ_OUT)/obj/%.o: $(FUZZ_SRC)/%.c $(FUZZ_HDRS) $(VERSION_FILE)
	@mkdir -p $(@D)
	$(FUZZ_CC) -I$(FUZZ_SRC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

# (the build identity, as utils/Makefile gives lib/build_id.o)
$(FUZZ_OUT)/obj/lib/build_id.o: override CPPFLAGS += -DRDCTL_BUILD_ID='"$(BUILD_ID)"'

$(FUZZ_OUT)/obj/$(SEAMS_ON): $(FUZZ_SRC)/lib/seams.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -I$(FUZZ_SRC) $(CPPFLAGS) -DRDCTL_TEST_SEAMS $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@
	ar rcs $@ $^

# The library's members are pulled in only as a harness needs them.
$(FUZZ_OUT)/bin/fuzz_%: $(FUZZ_DIR)/fuzz_%.c $(wildcard $(FUZZ_DIR)/*.h) $(FUZZ_LIB) $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -I$(FUZZ_SRC) $(CPPFLAGS) $(FUZZ_WARN) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_LIB) $(LDLIBS)

.PHONY: fuzz-build
