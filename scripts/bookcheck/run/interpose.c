/* The chapter's inputs, seen at the operating-system boundary (LD_PRELOAD).
 *
 * Built by scripts/bookcheck/run/interpose.py with `cc -shared -fPIC -O2 interpose.c -ldl`
 * into the store, keyed on this file's digest; loaded by the fork server and every
 * directly launched kernel; every child (subprocess, shell, exec) inherits it
 * through the environment, which execve and posix_spawn re-add when a caller
 * dropped it.
 *
 * Each libc file call Python and C libraries really make (open/openat and their
 * 64-bit and fortified forms, fopen, stat/lstat/fstatat/statx and glibc's older
 * __xstat forms, access/faccessat, readlink/readlinkat, opendir/fdopendir/
 * getdents64/scandir) appends one record to the per-process log
 * $QMD_OBSERVE_DIR/<pid>.log, written with one write() (O_APPEND: records of
 * threads never interleave):
 *
 *     <op> <tid> <flags> <errno> <mode> <size> <mtime_s> <mtime_ns> <absolute path>\n
 *
 * op: open, stat, lstat, access, readlink, list. errno 0: the call succeeded;
 * mode/size/mtime: what the call saw (stat: its buffer; open: fstat of the new
 * descriptor), 0 when it saw nothing. Relative paths are resolved against the
 * working directory, dirfd-relative ones through /proc/self/fd/N.
 *
 * Nothing is written unless QMD_OBSERVE_DIR is set and qmd_observe_active is
 * non-zero (the kernel sets it while a chapter's step runs, through ctypes);
 * paths under a prefix of QMD_OBSERVE_SKIP (colon-separated: the interpreter's
 * own files) are not written. A fork() child starts its own log (pthread_atfork);
 * a vfork() child, which shares its parent's memory until it execs, writes nothing.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

int qmd_observe_active = 1;          /* a new program records from its start */
static int log_fd = -1;
static pid_t owner;
static __thread int busy __attribute__((tls_model("initial-exec")));            /* inside a wrapper: our own calls are not records */
static __thread int paused __attribute__((tls_model("initial-exec")));          /* the import system's own scans (qmd_observe_pause) */
static char preload_entry[PATH_MAX + 16];   /* "LD_PRELOAD=..." as this process started */

void qmd_observe_pause(int delta) { paused += delta; }

static void forked_child(void) {
    if (log_fd >= 0)
        syscall(SYS_close, log_fd);
    log_fd = -1;
    owner = getpid();
}

__attribute__((constructor)) static void qmd_init(void) {
    const char *preload = getenv("LD_PRELOAD");
    owner = getpid();
    if (preload && strlen(preload) < PATH_MAX)
        snprintf(preload_entry, sizeof preload_entry, "LD_PRELOAD=%s", preload);
    pthread_atfork(NULL, NULL, forked_child);
}

static int skipped(const char *path) {
    const char *skip = getenv("QMD_OBSERVE_SKIP");
    while (skip && *skip) {
        const char *end = strchr(skip, ':');
        size_t n = end ? (size_t)(end - skip) : strlen(skip);
        if (n && strncmp(path, skip, n) == 0 && (path[n] == '/' || path[n] == 0))
            return 1;
        skip = end ? end + 1 : NULL;
    }
    return 0;
}

static int open_log(void) {
    char name[PATH_MAX];
    const char *dir = getenv("QMD_OBSERVE_DIR");
    if (!dir || !*dir)
        return -1;
    if (snprintf(name, sizeof name, "%s/%d.log", dir, (int)owner) >= (int)sizeof name)
        return -1;
    log_fd = (int)syscall(SYS_openat, AT_FDCWD, name,
                          O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    return log_fd;
}

/* The absolute form of `path` relative to `dirfd` into out; 0 when it has none. */
static int absolute(int dirfd, const char *path, char *out, size_t size) {
    char base[PATH_MAX];
    if (!path || !*path)
        return 0;
    if (path[0] == '/')
        return snprintf(out, size, "%s", path) < (int)size;
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base))
            return 0;
    } else {
        char link[64];
        long n;
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        n = syscall(SYS_readlinkat, AT_FDCWD, link, base, sizeof base - 1);
        if (n <= 0)
            return 0;
        base[n] = 0;
    }
    return snprintf(out, size, "%s/%s", base, path) < (int)size;
}

static int watching(void) {
    return qmd_observe_active && !busy && !paused && getpid() == owner;
}

static void record(const char *op, int dirfd, const char *path, long flags, int err,
                   const struct stat *seen) {
    char where[PATH_MAX], line[PATH_MAX + 160];
    int n;
    if (!absolute(dirfd, path, where, sizeof where) || strchr(where, '\n') || skipped(where))
        return;
    if (log_fd < 0 && open_log() < 0)
        return;
    n = snprintf(line, sizeof line, "%s %ld %ld %d %u %lld %lld %ld %s\n", op,
                 (long)syscall(SYS_gettid), flags, err, seen ? (unsigned)seen->st_mode : 0u,
                 seen ? (long long)seen->st_size : 0LL,
                 seen ? (long long)seen->st_mtim.tv_sec : 0LL,
                 seen ? (long)seen->st_mtim.tv_nsec : 0L, where);
    if (n > 0 && n < (int)sizeof line)
        (void)!write(log_fd, line, (size_t)n);
}

static void record_fd(const char *op, int fd, long flags) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    char where[PATH_MAX];
    long n = syscall(SYS_readlinkat, AT_FDCWD, link, where, sizeof where - 1);
    if (n <= 0)
        return;
    where[n] = 0;
    if (where[0] == '/')
        record(op, AT_FDCWD, where, flags, 0, NULL);
}

static void record_open(int dirfd, const char *path, int flags, int fd) {
    struct stat seen;
    int err = fd < 0 ? errno : 0;
    int have = fd >= 0 && syscall(SYS_fstat, fd, &seen) == 0;
    record("open", dirfd, path, flags, err, have ? &seen : NULL);
    errno = err ? err : errno;
}

#define REAL(name, ...) \
    static __typeof__(__VA_ARGS__) real_##name; \
    if (!real_##name) real_##name = (__typeof__(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

#define BEGIN int watched = watching(); if (watched) busy++
#define END(result) if (watched) busy--; return result

/* ---------------------------------------------------------------- open */

#define MODE_ARG(flags) \
    mode_t mode = 0; \
    if ((flags) & (O_CREAT | __O_TMPFILE)) { va_list ap; va_start(ap, flags); \
        mode = va_arg(ap, mode_t); va_end(ap); }

#define OPEN_AT(name) \
int name(int dirfd, const char *path, int flags, ...) { \
    MODE_ARG(flags) \
    REAL(name, int (*)(int, const char *, int, ...)); \
    BEGIN; \
    int fd = real_##name(dirfd, path, flags, mode); \
    if (watched) { int saved = errno; record_open(dirfd, path, flags, fd); errno = saved; } \
    END(fd); \
}

#define OPEN(name) \
int name(const char *path, int flags, ...) { \
    MODE_ARG(flags) \
    REAL(name, int (*)(const char *, int, ...)); \
    BEGIN; \
    int fd = real_##name(path, flags, mode); \
    if (watched) { int saved = errno; record_open(AT_FDCWD, path, flags, fd); errno = saved; } \
    END(fd); \
}

OPEN(open)
OPEN(open64)
OPEN_AT(openat)
OPEN_AT(openat64)

#define OPEN_2(name) \
int name(const char *path, int flags) { \
    REAL(name, int (*)(const char *, int)); \
    BEGIN; \
    int fd = real_##name(path, flags); \
    if (watched) { int saved = errno; record_open(AT_FDCWD, path, flags, fd); errno = saved; } \
    END(fd); \
}
OPEN_2(__open_2)
OPEN_2(__open64_2)

#define OPENAT_2(name) \
int name(int dirfd, const char *path, int flags) { \
    REAL(name, int (*)(int, const char *, int)); \
    BEGIN; \
    int fd = real_##name(dirfd, path, flags); \
    if (watched) { int saved = errno; record_open(dirfd, path, flags, fd); errno = saved; } \
    END(fd); \
}
OPENAT_2(__openat_2)
OPENAT_2(__openat64_2)

#define CREAT(name) \
int name(const char *path, mode_t mode) { \
    REAL(name, int (*)(const char *, mode_t)); \
    BEGIN; \
    int fd = real_##name(path, mode); \
    if (watched) { int saved = errno; \
        record_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, fd); errno = saved; } \
    END(fd); \
}
CREAT(creat)
CREAT(creat64)

static int fopen_flags(const char *mode) {
    int plus = mode && strchr(mode, '+') != NULL;
    switch (mode ? mode[0] : 'r') {
    case 'w': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
    case 'a': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
    case 'x': return O_WRONLY | O_CREAT | O_EXCL;
    default: return plus ? O_RDWR : O_RDONLY;
    }
}

#define FOPEN(name) \
FILE *name(const char *path, const char *mode) { \
    REAL(name, FILE *(*)(const char *, const char *)); \
    BEGIN; \
    FILE *file = real_##name(path, mode); \
    if (watched) { int saved = errno; \
        record_open(AT_FDCWD, path, fopen_flags(mode), file ? fileno(file) : -1); errno = saved; } \
    END(file); \
}
FOPEN(fopen)
FOPEN(fopen64)

#define FREOPEN(name) \
FILE *name(const char *path, const char *mode, FILE *stream) { \
    REAL(name, FILE *(*)(const char *, const char *, FILE *)); \
    BEGIN; \
    FILE *file = real_##name(path, mode, stream); \
    if (watched && path) { int saved = errno; \
        record_open(AT_FDCWD, path, fopen_flags(mode), file ? fileno(file) : -1); errno = saved; } \
    END(file); \
}
FREOPEN(freopen)
FREOPEN(freopen64)

/* ---------------------------------------------------------------- stat */

static void record_stat(const char *op, int dirfd, const char *path, int result,
                        const struct stat *seen) {
    int saved = errno;
    record(op, dirfd, path, 0, result == 0 ? 0 : saved, result == 0 ? seen : NULL);
    errno = saved;
}

static void record_stat64(const char *op, int dirfd, const char *path, int result,
                          const struct stat64 *seen64) {
    struct stat seen;
    memset(&seen, 0, sizeof seen);
    if (result == 0) {
        seen.st_mode = seen64->st_mode;
        seen.st_size = (off_t)seen64->st_size;
        seen.st_mtim = seen64->st_mtim;
    }
    record_stat(op, dirfd, path, result, &seen);
}

#define STAT(name, op, type, rec) \
int name(const char *path, struct type *buf) { \
    REAL(name, int (*)(const char *, struct type *)); \
    BEGIN; \
    int result = real_##name(path, buf); \
    if (watched) rec(op, AT_FDCWD, path, result, buf); \
    END(result); \
}
STAT(stat, "stat", stat, record_stat)
STAT(lstat, "lstat", stat, record_stat)
STAT(stat64, "stat", stat64, record_stat64)
STAT(lstat64, "lstat", stat64, record_stat64)

#define FSTATAT(name, type, rec) \
int name(int dirfd, const char *path, struct type *buf, int flags) { \
    REAL(name, int (*)(int, const char *, struct type *, int)); \
    BEGIN; \
    int result = real_##name(dirfd, path, buf, flags); \
    if (watched && !((flags & AT_EMPTY_PATH) && path && !*path))  /* fstat by another name */ \
        rec((flags & AT_SYMLINK_NOFOLLOW) ? "lstat" : "stat", dirfd, path, result, buf); \
    END(result); \
}
FSTATAT(fstatat, stat, record_stat)
FSTATAT(fstatat64, stat64, record_stat64)

/* glibc before 2.33 had no stat symbols: binaries built then (manylinux wheels) call these */
#define XSTAT(name, op, type, rec) \
int name(int ver, const char *path, struct type *buf) { \
    REAL(name, int (*)(int, const char *, struct type *)); \
    BEGIN; \
    int result = real_##name(ver, path, buf); \
    if (watched) rec(op, AT_FDCWD, path, result, buf); \
    END(result); \
}
XSTAT(__xstat, "stat", stat, record_stat)
XSTAT(__lxstat, "lstat", stat, record_stat)
XSTAT(__xstat64, "stat", stat64, record_stat64)
XSTAT(__lxstat64, "lstat", stat64, record_stat64)

#define FXSTATAT(name, type, rec) \
int name(int ver, int dirfd, const char *path, struct type *buf, int flags) { \
    REAL(name, int (*)(int, int, const char *, struct type *, int)); \
    BEGIN; \
    int result = real_##name(ver, dirfd, path, buf, flags); \
    if (watched && !((flags & AT_EMPTY_PATH) && path && !*path)) \
        rec((flags & AT_SYMLINK_NOFOLLOW) ? "lstat" : "stat", dirfd, path, result, buf); \
    END(result); \
}
FXSTATAT(__fxstatat, stat, record_stat)
FXSTATAT(__fxstatat64, stat64, record_stat64)

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf) {
    REAL(statx, int (*)(int, const char *, int, unsigned int, struct statx *));
    BEGIN;
    int result = real_statx(dirfd, path, flags, mask, buf);
    if (watched && !((flags & AT_EMPTY_PATH) && path && !*path)) {
        struct stat seen;
        memset(&seen, 0, sizeof seen);
        if (result == 0) {
            seen.st_mode = buf->stx_mode;
            seen.st_size = (off_t)buf->stx_size;
            seen.st_mtim.tv_sec = buf->stx_mtime.tv_sec;
            seen.st_mtim.tv_nsec = buf->stx_mtime.tv_nsec;
        }
        record_stat((flags & AT_SYMLINK_NOFOLLOW) ? "lstat" : "stat", dirfd, path, result, &seen);
    }
    END(result);
}

/* -------------------------------------------------- access, links, listings */

int access(const char *path, int mode) {
    REAL(access, int (*)(const char *, int));
    BEGIN;
    int result = real_access(path, mode);
    if (watched) { int saved = errno; record("access", AT_FDCWD, path, mode, result ? saved : 0, NULL); errno = saved; }
    END(result);
}

int faccessat(int dirfd, const char *path, int mode, int flags) {
    REAL(faccessat, int (*)(int, const char *, int, int));
    BEGIN;
    int result = real_faccessat(dirfd, path, mode, flags);
    if (watched) { int saved = errno; record("access", dirfd, path, mode, result ? saved : 0, NULL); errno = saved; }
    END(result);
}

int eaccess(const char *path, int mode) {
    REAL(eaccess, int (*)(const char *, int));
    BEGIN;
    int result = real_eaccess(path, mode);
    if (watched) { int saved = errno; record("access", AT_FDCWD, path, mode, result ? saved : 0, NULL); errno = saved; }
    END(result);
}

ssize_t readlink(const char *path, char *buf, size_t size) {
    REAL(readlink, ssize_t (*)(const char *, char *, size_t));
    BEGIN;
    ssize_t result = real_readlink(path, buf, size);
    if (watched) { int saved = errno; record("readlink", AT_FDCWD, path, 0, result < 0 ? saved : 0, NULL); errno = saved; }
    END(result);
}

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size) {
    REAL(readlinkat, ssize_t (*)(int, const char *, char *, size_t));
    BEGIN;
    ssize_t result = real_readlinkat(dirfd, path, buf, size);
    if (watched) { int saved = errno; record("readlink", dirfd, path, 0, result < 0 ? saved : 0, NULL); errno = saved; }
    END(result);
}

DIR *opendir(const char *path) {
    REAL(opendir, DIR *(*)(const char *));
    BEGIN;
    DIR *dir = real_opendir(path);
    if (watched) { int saved = errno; record("list", AT_FDCWD, path, 0, dir ? 0 : saved, NULL); errno = saved; }
    END(dir);
}

DIR *fdopendir(int fd) {
    REAL(fdopendir, DIR *(*)(int));
    BEGIN;
    DIR *dir = real_fdopendir(fd);
    if (watched && dir) { int saved = errno; record_fd("list", fd, 0); errno = saved; }
    END(dir);
}

ssize_t getdents64(int fd, void *buf, size_t size) {
    REAL(getdents64, ssize_t (*)(int, void *, size_t));
    BEGIN;
    ssize_t result = real_getdents64(fd, buf, size);
    if (watched && result >= 0) { int saved = errno; record_fd("list", fd, 0); errno = saved; }
    END(result);
}

#define SCANDIR(name, entry) \
int name(const char *path, struct entry ***list, int (*filter)(const struct entry *), \
         int (*compare)(const struct entry **, const struct entry **)) { \
    REAL(name, int (*)(const char *, struct entry ***, int (*)(const struct entry *), \
                       int (*)(const struct entry **, const struct entry **))); \
    BEGIN; \
    int result = real_##name(path, list, filter, compare); \
    if (watched) { int saved = errno; record("list", AT_FDCWD, path, 0, result < 0 ? saved : 0, NULL); errno = saved; } \
    END(result); \
}
SCANDIR(scandir, dirent)
SCANDIR(scandir64, dirent64)

/* ---------------------------------------------------- children inherit it */

static const char *entry_of(char *const *env, const char *name, size_t n) {
    for (; env && *env; env++)
        if (strncmp(*env, name, n) == 0)
            return *env;
    return NULL;
}

/* envp with LD_PRELOAD and QMD_OBSERVE_* re-added from this process where the
 * caller dropped them (into `out`, room for `room` entries); no allocation:
 * this may run in a vfork child. */
static char *const *inherited(char *const *envp, char **out, size_t room) {
    static const char *const names[] = {"QMD_OBSERVE_DIR=", "QMD_OBSERVE_SKIP="};
    const char *add[3];
    size_t extra = 0, n = 0, i;
    if (preload_entry[0] && !entry_of(envp, "LD_PRELOAD=", 11))
        add[extra++] = preload_entry;
    for (i = 0; i < 2; i++) {
        const char *mine = entry_of(environ, names[i], strlen(names[i]));
        if (mine && !entry_of(envp, names[i], strlen(names[i])))
            add[extra++] = mine;
    }
    if (!extra)
        return envp;
    for (; envp && envp[n]; n++)
        ;
    if (n + extra + 1 > room)
        return envp;
    for (i = 0; i < n; i++)
        out[i] = envp[i];
    for (i = 0; i < extra; i++)
        out[n + i] = (char *)add[i];
    out[n + extra] = NULL;
    return out;
}

#define ENV_ROOM 4096

int execve(const char *path, char *const argv[], char *const envp[]) {
    char *room[ENV_ROOM];
    REAL(execve, int (*)(const char *, char *const[], char *const[]));
    return real_execve(path, argv, inherited(envp, room, ENV_ROOM));
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
    char *room[ENV_ROOM];
    REAL(execvpe, int (*)(const char *, char *const[], char *const[]));
    return real_execvpe(file, argv, inherited(envp, room, ENV_ROOM));
}

int execv(const char *path, char *const argv[]) {
    char *room[ENV_ROOM];
    REAL(execve, int (*)(const char *, char *const[], char *const[]));
    return real_execve(path, argv, inherited(environ, room, ENV_ROOM));
}

int execvp(const char *file, char *const argv[]) {
    char *room[ENV_ROOM];
    REAL(execvpe, int (*)(const char *, char *const[], char *const[]));
    return real_execvpe(file, argv, inherited(environ, room, ENV_ROOM));
}

#define SPAWN(name) \
int name(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions, \
         const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) { \
    char *room[ENV_ROOM]; \
    REAL(name, int (*)(pid_t *, const char *, const posix_spawn_file_actions_t *, \
                       const posix_spawnattr_t *, char *const[], char *const[])); \
    return real_##name(pid, path, actions, attr, argv, inherited(envp, room, ENV_ROOM)); \
}
SPAWN(posix_spawn)
SPAWN(posix_spawnp)
