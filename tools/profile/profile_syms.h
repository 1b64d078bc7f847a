/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Symbol tables for uprofile(1) and kprofile(1): the function symbols of
 * ELF files (through libelf), of /proc/kallsyms, and the text mappings of
 * /proc/PID/maps.  Addresses are run-time addresses: an ELF file's symbols
 * are added with the load bias of the mapping they run at.
 */
#ifndef PROFILE_SYMS_H
#define PROFILE_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROF_ERRLEN	4608

struct prof_sym {
	uint64_t addr;		/* run-time address */
	uint64_t size;		/* 0: up to the next symbol */
	char *name;
	bool global;		/* preferred among symbols at one address */
};

struct prof_symtab {
	struct prof_sym *syms;
	size_t n, cap;
	bool sorted;
};

void prof_symtab_init(struct prof_symtab *t);
void prof_symtab_free(struct prof_symtab *t);

/* Add one symbol (the name is copied); 0 or -1 (out of memory). */
int prof_symtab_add(struct prof_symtab *t, uint64_t addr, uint64_t size,
		    const char *name, bool global);

/*
 * Sort by address and drop the aliases: of the symbols at one address, the
 * global one is kept, then the one with the fewest leading underscores,
 * then the one of the smallest name.  Done by
 * prof_symtab_lookup() when needed.
 */
void prof_symtab_sort(struct prof_symtab *t);

/*
 * The symbol whose function contains addr (its [addr, addr + size), or up
 * to the next symbol when its size is 0), or NULL.
 */
const struct prof_sym *prof_symtab_lookup(struct prof_symtab *t, uint64_t addr);

/*
 * The function symbols (STT_FUNC, STT_GNU_IFUNC) of the ELF file at path,
 * from .symtab, or .dynsym when it has no .symtab, each at its value plus
 * bias.  Returns the number added, or -1 with a message in err.
 */
int prof_syms_add_elf(struct prof_symtab *t, const char *path, int64_t bias,
		      char *err, size_t errlen);

/*
 * The load bias of the ELF file at path when its bytes at file offset
 * map_off are mapped at map_start (a line of /proc/PID/maps): run-time
 * address = ELF address + bias.  0, or -1 with a message in err.
 */
int prof_elf_bias(const char *path, uint64_t map_start, uint64_t map_off,
		  int64_t *bias, char *err, size_t errlen);

/*
 * The text symbols (types t, T, w, W) of a /proc/kallsyms text, module
 * symbols included.  *stext and *etext receive _stext and _etext (0 when
 * absent).  Returns the number added, -1 on a read or memory error.
 * All addresses 0 means the reader may not see them.
 */
int prof_syms_add_kallsyms(struct prof_symtab *t, FILE *f, uint64_t *stext,
			   uint64_t *etext);

/* One line of /proc/PID/maps. */
struct prof_map {
	uint64_t start, end, off;
	bool exec;
	char path[4096];	/* "" for an anonymous mapping */
};

/* Parse a maps line; 0, or -1 if it is not one. */
int prof_parse_maps_line(const char *line, struct prof_map *m);

/*
 * The text range to profile, of the n mappings m (executable mappings of
 * files: their exec flag set and a path that begins with '/'; others are
 * ignored): the executable's text (the mappings of exe), extended to the
 * text of other files (shared libraries, the dynamic linker), nearest
 * first, as long as the whole range stays within max_span bytes.
 * in_range[i] tells whether m[i] lies in the range.  0, or -1 when exe has
 * no executable mapping.
 */
int prof_pick_text(const struct prof_map *m, size_t n, const char *exe,
		   uint64_t max_span, uint64_t *start, uint64_t *end,
		   bool *in_range);

#endif /* PROFILE_SYMS_H */
