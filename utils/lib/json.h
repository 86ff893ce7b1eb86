/* SPDX-License-Identifier: GPL-2.0 */
/* Building and printing JSON documents with jansson. */
#ifndef RDCTL_JSON_H
#define RDCTL_JSON_H

#include <stdint.h>

#include <jansson.h>

/* Builders; they never return NULL (out of memory exits). */
void *jcheck(void *p);
json_t *jobj(void);
void jset(json_t *obj, const char *key, json_t *value);
void jappend(json_t *arr, json_t *value);
json_t *jstr_or_null(const char *s);
/* A count: values over INT64_MAX (never met) print as INT64_MAX. */
json_t *ju64(uint64_t v);
/* -1: null, else a boolean. */
json_t *jtri(int v);

/* Print root (one document and a newline) on stdout and free it. 0 or a failure. */
int json_emit(json_t *root);

#endif
