/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Symbol tables for uprofile(1) and kprofile(1): the function symbols of
 * a process's objects and of ELF files (through elfutils' libdwfl), of
 * /proc/kallsyms, and the text mappings of /proc/PID/maps.  Addresses are
 * run-time addresses: an object's symbols are added where it is loaded.
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

/*
 * An object mapped in a process (the executable, a shared library, the
 * vDSO): where its file lies in memory, and the name of the samples in it
 * that no function covers.
 */
struct prof_module {
	uint64_t start, end;	/* run-time [start, end) */
	char *unknown;		/* "(unknown)", "(unknown in libc.so.6)" */
};

struct prof_symtab {
	struct prof_sym *syms;
	size_t n, cap;
	bool sorted;
	struct prof_module *mods;
	size_t nmods;
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

/* Add an object's extent and label; 0 or -1 (out of memory). */
int prof_symtab_add_module(struct prof_symtab *t, uint64_t start, uint64_t end,
			   const char *unknown);

/* The object whose extent holds addr, or NULL. */
const struct prof_module *prof_symtab_module(const struct prof_symtab *t,
					     uint64_t addr);

/*
 * The function symbols of every object mapped in process pid (its
 * executable, shared libraries, dynamic linker, vDSO), at their run-time
 * addresses, through elfutils' libdwfl (dwfl_linux_proc_report()): the
 * symbol table of the file, or of its separate debug file found by
 * build-id or .gnu_debuglink in the standard debuginfo paths (beside the
 * file, its .debug directory, /usr/lib/debug), or the dynamic symbols.
 * The executable exe's functions keep their names; the others are named
 * "NAME (OBJECT)", OBJECT the file's base name or [vdso].  Each object is
 * added as a module too.  Returns the number of objects, or -1 with a
 * message in err.
 */
int prof_syms_add_proc(struct prof_symtab *t, int pid, const char *exe,
		       char *err, size_t errlen);

/*
 * The same for one ELF file loaded at base (the address of its first
 * loadable segment's page; for a position-independent file, its load
 * bias), through dwfl_report_elf().  main: the executable, whose
 * functions keep their names.  debuginfo_path: where to look for a
 * separate debug file (libdwfl's syntax), NULL for the standard paths.
 * The number of functions added, or -1 with a message in err.
 */
int prof_syms_add_file(struct prof_symtab *t, const char *path, uint64_t base,
		       bool main, const char *debuginfo_path, char *err,
		       size_t errlen);

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

/* A range of user text to profile: [start, end). */
struct prof_range {
	uint64_t start, end;
};

/*
 * The ranges to profile, at most max_out of them, of the n mappings m: the
 * executable mappings (files, the vDSO; [vsyscall], in the kernel's half,
 * is left out), in address order, grouped so that no range spans more than
 * max_span bytes (a mapping larger than that is a range of its own).  The
 * range that holds exe's text comes first, then the others in address
 * order; the ranges beyond max_out (at least 1) are not profiled (*left
 * gets their number).  Returns the number of ranges, -1 when exe has no
 * executable mapping.
 */
int prof_pick_ranges(const struct prof_map *m, size_t n, const char *exe,
		     uint64_t max_span, struct prof_range *out, size_t max_out,
		     size_t *left);

#endif /* PROFILE_SYMS_H */
