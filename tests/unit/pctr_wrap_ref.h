/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' own statement of OpenBSD's list-mode wrapping, which
 * pctr_fmt_event() must reproduce (pctr_fmt_test, pctr_models_test).
 */
#ifndef PCTR_WRAP_REF_H
#define PCTR_WRAP_REF_H

#include <stdio.h>
#include <string.h>

/*
 * OpenBSD's pctr_printdesc() rule, written from its description: a
 * description shorter than 70 characters is printed whole; a longer one
 * is broken at the last space before character 72, and the rest goes
 * on.  Every line is indented by six spaces.
 */
static inline void openbsd_wrap(const char *d, char *out, size_t len)
{
	size_t pos = 0, rest, cut, i;

	out[0] = '\0';
	while (*d == ' ')
		d++;
	while (*d && pos + 1 < len) {
		rest = strlen(d);
		cut = rest;
		if (rest >= 70) {
			cut = 0;
			for (i = 0; i < 72 && i < rest; i++)
				if (d[i] == ' ')
					cut = i;
			if (!cut)
				cut = strcspn(d, " ");
		}
		pos += snprintf(out + pos, len - pos, "      %.*s\n", (int)cut, d);
		d += cut;
		while (*d == ' ')
			d++;
	}
}

#endif /* PCTR_WRAP_REF_H */
