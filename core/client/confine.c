#include "client/confine.h"

#include "plugin-api.h"
#include "mcph-env.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Landlock past the ABI of the system's header (Debian 12's knows ABI 2): the values are the
 * kernel's, from its uapi header. */
#define CONFINE_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define CONFINE_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define CONFINE_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define CONFINE_NET_CONNECT_TCP (1ULL << 1)
#define CONFINE_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define CONFINE_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; a kernel is given the part its ABI knows. */
struct confine_ruleset {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

#define CONFINE_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define CONFINE_EXEC (CONFINE_READ | LANDLOCK_ACCESS_FS_EXECUTE)
#define CONFINE_WRITE                                                                              \
    (CONFINE_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                \
     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |  \
     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |   \
     LANDLOCK_ACCESS_FS_REFER | CONFINE_FS_TRUNCATE)
#define CONFINE_DEVICE                                                                             \
    (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | CONFINE_FS_TRUNCATE |          \
     CONFINE_FS_IOCTL_DEV)
/* The rights a rule on a file (not a folder) may hold. */
#define CONFINE_FILE_RIGHTS                                                                        \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |   \
     CONFINE_FS_TRUNCATE | CONFINE_FS_IOCTL_DEV)

#define CONFINE_PROGRAM_DEPTH 4 /* #! interpreters followed from a program */

enum confine_from {
    CONFINE_RULE,    /* the section's read, write or exec */
    CONFINE_PROGRAM, /* the program, its interpreter or its loader */
    CONFINE_SYSTEM,  /* what every process needs; skipped where it does not exist */
};

struct confine_path {
    char *path;
    uint64_t access;
    int from;  /* enum confine_from */
    int same;  /* dev and ino must still be the file's when the child opens it (the path is
                * not followed there: a link put in its place since is refused) */
    dev_t dev; /* as the parent saw it */
    ino_t ino;
};

struct confine {
    struct confine_path *paths;
    size_t npaths, cap;
    int network;
    int abi;                 /* the Landlock ABI used; 0: none */
    int seccomp;             /* the kernel filters system calls (a filter is built) */
    struct sock_filter *bpf; /* the filter, built by libseccomp */
    unsigned short nbpf;
    int refused; /* system calls the filter refuses in every case */
};

/* What every process needs to read: the libraries and programs of the system, the files of
 * /etc its C library reads, and what it learns of the machine. */
static const char *const confine_system_read[] = {
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ld.so.preload",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/alternatives",
    "/etc/mime.types",
    "/proc/self", /* opened by the child: its own entry, not mcph's */
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/version",
    "/proc/filesystems",
    "/proc/sys/kernel/osrelease",
    "/proc/sys/vm/overcommit_memory",
    "/sys/devices/system/cpu",
    "/dev/random",
    "/dev/urandom",
    NULL};
/* ... and to write. */
static const char *const confine_system_write[] = {"/dev/null", "/dev/zero", "/dev/full", NULL};

/* The system calls no plugin or server needs, refused with EPERM: tracing and reading other
 * processes, mounting, namespaces, the kernel's own state (modules, kexec, BPF, keys, clocks,
 * reboot, swap, the log), raw I/O ports, file handles that skip paths, io_uring (its requests
 * pass around this filter) and userfaultfd. */
static const char *const confine_refused[] = {"ptrace",
                                              "process_vm_readv",
                                              "process_vm_writev",
                                              "pidfd_getfd",
                                              "kcmp",
                                              "mount",
                                              "umount2",
                                              "pivot_root",
                                              "chroot",
                                              "move_mount",
                                              "open_tree",
                                              "fsopen",
                                              "fsconfig",
                                              "fsmount",
                                              "fspick",
                                              "mount_setattr",
                                              "unshare",
                                              "setns",
                                              "kexec_load",
                                              "kexec_file_load",
                                              "bpf",
                                              "perf_event_open",
                                              "init_module",
                                              "finit_module",
                                              "delete_module",
                                              "keyctl",
                                              "add_key",
                                              "request_key",
                                              "reboot",
                                              "swapon",
                                              "swapoff",
                                              "syslog",
                                              "acct",
                                              "settimeofday",
                                              "clock_settime",
                                              "clock_adjtime",
                                              "adjtimex",
                                              "iopl",
                                              "ioperm",
                                              "quotactl",
                                              "quotactl_fd",
                                              "lookup_dcookie",
                                              "open_by_handle_at",
                                              "name_to_handle_at",
                                              "nfsservctl",
                                              "vhangup",
                                              "sethostname",
                                              "setdomainname",
                                              "io_uring_setup",
                                              "io_uring_enter",
                                              "io_uring_register",
                                              "userfaultfd",
                                              "fanotify_init",
                                              "migrate_pages",
                                              "move_pages",
                                              "uselib",
                                              NULL};

/* --- Building one. --- */

static int confine_add(struct confine *c, const char *path, uint64_t rights, int from)
{
    struct stat st;
    char *copy;

    for (size_t i = 0; i < c->npaths; i++) {
        if (strcmp(c->paths[i].path, path) == 0) {
            c->paths[i].access |= rights;
            return MCPH_OK;
        }
    }
    if (c->npaths == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        struct confine_path *p = realloc(c->paths, cap * sizeof(*p));

        if (p == NULL)
            return MCPH_ERR_NOMEM;
        c->paths = p;
        c->cap = cap;
    }
    copy = strdup(path);
    if (copy == NULL)
        return MCPH_ERR_NOMEM;
    c->paths[c->npaths] = (struct confine_path){.path = copy, .access = rights, .from = from};
    /* /proc/self is the child's own, not this process's: opened as it is, by the child. */
    if (strncmp(path, "/proc/self", 10) != 0 && stat(path, &st) == 0) {
        c->paths[c->npaths].same = 1;
        c->paths[c->npaths].dev = st.st_dev;
        c->paths[c->npaths].ino = st.st_ino;
    }
    c->npaths++;
    return MCPH_OK;
}

/* Each word of a rule's value, which must exist. */
static int confine_add_words(struct confine *c, const char *key, const char *value, uint64_t rights,
                             struct mcph_strbuf *why)
{
    char *word;
    int quoted, rc = MCPH_OK;

    if (value == NULL)
        return MCPH_OK;
    word = malloc(strlen(value) + 1);
    if (word == NULL)
        return MCPH_ERR_NOMEM;
    for (const char *p = mcph_word_skip(value); rc == MCPH_OK && *p != '\0';
         p = mcph_word_skip(p)) {
        struct stat st;
        char *real;

        if (mcph_word_next(&p, word, &quoted) != MCPH_OK) {
            mcph_sb_addf(why, "%s: a quote is not closed", key);
            rc = MCPH_ERR_INVALID;
        } else if (stat(word, &st) != 0 || (real = realpath(word, NULL)) == NULL) {
            int e = errno;

            mcph_sb_addf(why, "%s names '%s': %s; create it or remove it from %s", key, word,
                         strerror(e), key);
            rc = e == ENOMEM ? MCPH_ERR_NOMEM : MCPH_ERR_INVALID;
        } else {
            /* Absolute: the child opens it after changing to its folder. */
            rc = confine_add(c, real, rights, CONFINE_RULE);
            free(real);
        }
    }
    free(word);
    return rc;
}

static int confine_add_list(struct confine *c, const char *const *list, uint64_t rights)
{
    for (size_t i = 0; list[i] != NULL; i++) {
        /* Followed here (/lib64 may lead into /usr), so that the child need not follow it. */
        char *real =
            strncmp(list[i], "/proc/self", 10) == 0 ? strdup(list[i]) : realpath(list[i], NULL);
        int rc = real != NULL      ? confine_add(c, real, rights, CONFINE_SYSTEM)
                 : errno == ENOMEM ? MCPH_ERR_NOMEM
                                   : MCPH_OK;

        free(real);
        if (rc != MCPH_OK)
            return rc;
    }
    return MCPH_OK;
}

/* The dynamic loader an ELF file names (PT_INTERP) into buf, or "" (not ELF, static). */
static void confine_elf_interp(int fd, char *buf, size_t size)
{
    unsigned char ident[EI_NIDENT];
    int is64;
    uint64_t phoff;
    unsigned phnum, phentsize;

    buf[0] = '\0';
    if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
        memcmp(ident, ELFMAG, SELFMAG) != 0)
        return;
    is64 = ident[EI_CLASS] == ELFCLASS64;
    if (is64) {
        Elf64_Ehdr eh;

        if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
            return;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else {
        Elf32_Ehdr eh;

        if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
            return;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    }
    for (unsigned i = 0; i < phnum && i < 256; i++) {
        uint64_t type, off, len;

        if (is64) {
            Elf64_Phdr ph;

            if (pread(fd, &ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) !=
                (ssize_t)sizeof(ph))
                return;
            type = ph.p_type, off = ph.p_offset, len = ph.p_filesz;
        } else {
            Elf32_Phdr ph;

            if (pread(fd, &ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) !=
                (ssize_t)sizeof(ph))
                return;
            type = ph.p_type, off = ph.p_offset, len = ph.p_filesz;
        }
        if (type != PT_INTERP)
            continue;
        if (len == 0 || len >= size || pread(fd, buf, len, (off_t)off) != (ssize_t)len)
            len = 0;
        buf[len] = '\0';
        buf[strnlen(buf, len)] = '\0';
        return;
    }
}

/* name looked up in path_env (a PATH value), into buf; "" when not found. */
static void confine_lookup(const char *name, const char *path_env, char *buf, size_t size)
{
    buf[0] = '\0';
    if (strchr(name, '/') != NULL) {
        snprintf(buf, size, "%s", name);
        return;
    }
    while (path_env != NULL && *path_env != '\0') {
        size_t n = strcspn(path_env, ":");

        snprintf(buf, size, "%.*s/%s", (int)n, path_env, name);
        if (access(buf, X_OK) == 0)
            return;
        path_env += n + (path_env[n] == ':');
    }
    buf[0] = '\0';
}

/* The program at path, with exec, and what the kernel runs to run it: the #! interpreter
 * (and the program /usr/bin/env then runs), each ELF file's loader. */
static int confine_add_program(struct confine *c, const char *path, const char *path_env, int depth)
{
    char line[256], next[PATH_MAX], *real;
    int fd, rc;
    ssize_t n;

    /* /proc/self/exe (an isolated plugin's child, mcph itself) is opened as it is by the child,
     * so that the rule holds the running binary even after its file was replaced. */
    real = strncmp(path, "/proc/self/", 11) == 0 ? strdup(path) : realpath(path, NULL);
    if (real == NULL)
        return errno == ENOMEM ? MCPH_ERR_NOMEM : MCPH_OK; /* spawn says it cannot run */
    rc = confine_add(c, real, CONFINE_EXEC, CONFINE_PROGRAM);
    fd = open(real, O_RDONLY | O_CLOEXEC);
    free(real);
    if (rc != MCPH_OK || fd < 0)
        return rc;
    n = pread(fd, line, sizeof(line) - 1, 0);
    line[n > 0 ? n : 0] = '\0';
    confine_elf_interp(fd, next, sizeof(next));
    close(fd);
    if (next[0] != '\0')
        return depth > 0 ? confine_add_program(c, next, path_env, 0) : MCPH_OK;
    if (n > 2 && line[0] == '#' && line[1] == '!' && depth > 0) {
        char *p = line + 2, *end;

        line[strcspn(line, "\n")] = '\0';
        p += strspn(p, " \t");
        end = p + strcspn(p, " \t");
        if (*end != '\0')
            *end++ = '\0';
        rc = confine_add_program(c, p, path_env, depth - 1);
        end += strspn(end, " \t");
        if (rc == MCPH_OK && strcmp(strrchr(p, '/') ? strrchr(p, '/') + 1 : p, "env") == 0 &&
            *end != '\0' && *end != '-') {
            end[strcspn(end, " \t")] = '\0';
            confine_lookup(end, path_env, next, sizeof(next));
            if (next[0] != '\0')
                rc = confine_add_program(c, next, path_env, depth - 1);
        }
    }
    return rc;
}

/* The Landlock ABI this kernel offers, at most MCPH_LANDLOCK_ABI when that is set (to see
 * what an older kernel would enforce); 0: none. */
static int confine_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    const char *cap = getenv("MCPH_LANDLOCK_ABI");

    if (abi < 0)
        abi = 0;
    if (cap != NULL && *cap >= '0' && *cap <= '9' && atol(cap) < abi)
        abi = atol(cap);
    return (int)abi;
}

static int confine_rule(scmp_filter_ctx ctx, int err, const char *name, unsigned n,
                        const struct scmp_arg_cmp *arg)
{
    int nr = seccomp_syscall_resolve_name(name);

    if (nr < 0)
        return 0; /* not a system call of this architecture */
    return n == 0 ? seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)err), nr, 0)
                  : seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((unsigned)err), nr, n, arg);
}

/* What reaches other processes without a path or a signal Landlock could hold: their limits,
 * priority and CPUs (prlimit64, setpriority, sched_* on another pid), the user's whole process
 * list (kill of -1, which Landlock scopes from ABI 6 only), and the terminal mcph may share
 * with its child (TIOCSTI types into it, TIOCLINUX too; their 32 bits alone are compared, as
 * the kernel does). A process may still do each to itself. */
static int confine_others(scmp_filter_ctx ctx)
{
    static const char *const sched[] = {"sched_setaffinity", "sched_setscheduler", "sched_setparam",
                                        "sched_setattr", "prlimit64"};
    struct scmp_arg_cmp other = {0, SCMP_CMP_NE, 0, 0};
    struct scmp_arg_cmp all = {0, SCMP_CMP_MASKED_EQ, 0xffffffff, 0xffffffff};
    struct scmp_arg_cmp not_process = {0, SCMP_CMP_NE, PRIO_PROCESS, 0};
    struct scmp_arg_cmp not_self = {1, SCMP_CMP_NE, 0, 0};
    struct scmp_arg_cmp sti = {1, SCMP_CMP_MASKED_EQ, 0xffffffff, TIOCSTI};
    struct scmp_arg_cmp linux_ioctl = {1, SCMP_CMP_MASKED_EQ, 0xffffffff, TIOCLINUX};
    int bad = 0;

    for (size_t i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
        bad |= confine_rule(ctx, EPERM, sched[i], 1, &other) != 0;
    bad |= confine_rule(ctx, EPERM, "setpriority", 1, &not_process) != 0;
    bad |= confine_rule(ctx, EPERM, "setpriority", 1, &not_self) != 0;
    bad |= confine_rule(ctx, EPERM, "kill", 1, &all) != 0;
    bad |= confine_rule(ctx, EPERM, "ioctl", 1, &sti) != 0;
    bad |= confine_rule(ctx, EPERM, "ioctl", 1, &linux_ioctl) != 0;
    return bad;
}

/* The seccomp filter, exported as BPF (libseccomp 2.5 exports to a descriptor). */
static int confine_filter(struct confine *c)
{
    static const uint64_t ns_flags[] = {CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                        CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET, 0x80};
    scmp_filter_ctx ctx;
    int fd = -1, bad = 0;
    off_t size;

    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
        return MCPH_OK; /* no seccomp in this kernel: a gap */
    ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL)
        return MCPH_ERR_NOMEM;
    for (size_t i = 0; confine_refused[i] != NULL; i++) {
        bad |= confine_rule(ctx, EPERM, confine_refused[i], 0, NULL) != 0;
        c->refused += seccomp_syscall_resolve_name(confine_refused[i]) >= 0;
    }
    /* clone3's flags are in memory a filter cannot read: ENOSYS sends the C library to clone. */
    bad |= confine_rule(ctx, ENOSYS, "clone3", 0, NULL) != 0;
    for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
        struct scmp_arg_cmp flag = {0, SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]};

        bad |= confine_rule(ctx, EPERM, "clone", 1, &flag) != 0;
    }
    bad |= confine_others(ctx);
    if (!c->network) {
        bad |= confine_rule(ctx, EACCES, "socket", 0, NULL) != 0;
    } else {
        struct scmp_arg_cmp packet = {0, SCMP_CMP_MASKED_EQ, 0xffffffff, AF_PACKET};
        struct scmp_arg_cmp raw = {1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW};

        bad |= confine_rule(ctx, EPERM, "socket", 1, &packet) != 0;
        bad |= confine_rule(ctx, EPERM, "socket", 1, &raw) != 0;
    }
    if (!bad) {
        fd = memfd_create("mcph-seccomp", MFD_CLOEXEC);
        bad = fd < 0 || seccomp_export_bpf(ctx, fd) != 0;
    }
    seccomp_release(ctx);
    size = bad ? 0 : lseek(fd, 0, SEEK_END);
    if (size > 0 && size % (off_t)sizeof(struct sock_filter) == 0 &&
        size / (off_t)sizeof(struct sock_filter) <= BPF_MAXINSNS) {
        c->bpf = malloc((size_t)size);
        if (c->bpf != NULL && pread(fd, c->bpf, (size_t)size, 0) == size) {
            c->nbpf = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
            c->seccomp = 1;
        }
    }
    if (fd >= 0)
        close(fd);
    return c->seccomp ? MCPH_OK : MCPH_ERR_NOMEM;
}

int confine_new(struct confine **out, const char *read, const char *write, const char *exec,
                int network, const char *program, const char *path_env, struct mcph_strbuf *why)
{
    struct confine *c = calloc(1, sizeof(*c));
    int rc;

    *out = NULL;
    if (c == NULL)
        return MCPH_ERR_NOMEM;
    c->network = network != 0;
    c->abi = confine_landlock_abi();
    rc = confine_add_words(c, "read", read, CONFINE_READ, why);
    if (rc == MCPH_OK)
        rc = confine_add_words(c, "write", write, CONFINE_WRITE, why);
    if (rc == MCPH_OK)
        rc = confine_add_words(c, "exec", exec, CONFINE_EXEC, why);
    if (rc == MCPH_OK && program != NULL)
        rc = confine_add_program(c, program, path_env, CONFINE_PROGRAM_DEPTH);
    if (rc == MCPH_OK)
        rc = confine_add_list(c, confine_system_read, CONFINE_READ);
    if (rc == MCPH_OK)
        rc = confine_add_list(c, confine_system_write, CONFINE_DEVICE);
    if (rc == MCPH_OK)
        rc = confine_filter(c);
    if (rc != MCPH_OK) {
        confine_free(c);
        return rc;
    }
    *out = c;
    return MCPH_OK;
}

void confine_free(struct confine *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->npaths; i++)
        free(c->paths[i].path);
    free(c->paths);
    free(c->bpf);
    free(c);
}

int confine_same(const struct confine *a, const struct confine *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->npaths != b->npaths || a->network != b->network)
        return 0;
    for (size_t i = 0; i < a->npaths; i++) {
        if (strcmp(a->paths[i].path, b->paths[i].path) != 0 ||
            a->paths[i].access != b->paths[i].access)
            return 0;
    }
    return 1;
}

int confine_changed(const struct confine *c, struct mcph_strbuf *sb)
{
    for (size_t i = 0; c != NULL && i < c->npaths; i++) {
        const struct confine_path *p = &c->paths[i];
        struct stat st;

        if (!p->same || p->from == CONFINE_SYSTEM)
            continue;
        if (lstat(p->path, &st) != 0 || st.st_dev != p->dev || st.st_ino != p->ino) {
            mcph_sb_addf(sb, "%s is gone or is another file since the section was read", p->path);
            return 1;
        }
    }
    return 0;
}

/* --- Saying what it does. --- */

int confine_gaps(const struct confine *c, struct mcph_strbuf *sb)
{
    int n = 0;
    const char *sep = "";

#define CONFINE_GAP(...)                                                                           \
    do {                                                                                           \
        mcph_sb_addstr(sb, sep);                                                                   \
        mcph_sb_addf(sb, __VA_ARGS__);                                                             \
        sep = "; ";                                                                                \
        n++;                                                                                       \
    } while (0)
    if (c->abi == 0)
        CONFINE_GAP("the file rules (read, write, exec: every file stays open to it), signals "
                    "to processes outside its own and connections to abstract UNIX sockets "
                    "outside, for the kernel has no Landlock (Linux 5.13 and newer with landlock "
                    "in its lsm= list)");
    if (c->abi >= 1 && c->abi < 3)
        CONFINE_GAP("truncating files outside write (Landlock ABI %d; 3 needed)", c->abi);
    if (c->abi >= 1 && c->abi < 5)
        CONFINE_GAP("ioctl on devices (Landlock ABI %d; 5 needed)", c->abi);
    if (c->abi >= 1 && c->abi < 6)
        CONFINE_GAP("signals to processes outside its own (mcph among them) and connections to "
                    "abstract UNIX sockets outside (Landlock ABI %d; 6 needed)",
                    c->abi);
    if (!c->seccomp)
        CONFINE_GAP("the system call filter%s, for the kernel has no seccomp",
                    c->network ? "" : " and network = no");
#undef CONFINE_GAP
    return n;
}

static size_t confine_count(const struct confine *c, int from)
{
    size_t n = 0;

    for (size_t i = 0; i < c->npaths; i++)
        n += c->paths[i].from == from;
    return n;
}

static void confine_list(const struct confine *c, int from, uint64_t want, uint64_t not,
                         struct mcph_strbuf *sb)
{
    const char *sep = "";

    for (size_t i = 0; i < c->npaths; i++) {
        const struct confine_path *p = &c->paths[i];

        if (p->from != from || (p->access & want) != want || (p->access & not ) != 0)
            continue;
        mcph_sb_addf(sb, "%s%s", sep, p->path);
        sep = " ";
    }
    if (*sep == '\0')
        mcph_sb_addstr(sb, "(nothing)");
}

void confine_describe(const struct confine *c, const char *indent, struct mcph_strbuf *sb)
{
    mcph_sb_addf(sb, "%sconfined: no_new_privs, no capabilities", indent);
    if (c->abi > 0)
        mcph_sb_addf(sb, ", Landlock ABI %d", c->abi);
    if (c->seccomp)
        mcph_sb_addf(sb, ", seccomp (%d system calls refused, namespaces too)", c->refused);
    mcph_sb_addf(sb, "\n%s  read:    ", indent);
    confine_list(c, CONFINE_RULE, CONFINE_READ,
                 LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_EXECUTE, sb);
    mcph_sb_addf(sb, "\n%s  write:   ", indent);
    confine_list(c, CONFINE_RULE, LANDLOCK_ACCESS_FS_WRITE_FILE, 0, sb);
    mcph_sb_addf(sb, "\n%s  exec:    ", indent);
    confine_list(c, CONFINE_RULE, LANDLOCK_ACCESS_FS_EXECUTE, 0, sb);
    mcph_sb_addf(sb, "\n%s  program: ", indent);
    if (confine_count(c, CONFINE_PROGRAM) > 0)
        confine_list(c, CONFINE_PROGRAM, LANDLOCK_ACCESS_FS_EXECUTE, 0, sb);
    else
        mcph_sb_addstr(sb, "the command's, its #! interpreter and its loader");
    mcph_sb_addf(sb, " (exec)\n%s  network: %s", indent,
                 c->network ? "yes (but packet and raw sockets)"
                            : "no (socket() fails with EACCES; socketpair() works)");
    mcph_sb_addf(sb, "\n%s  system:  read ", indent);
    confine_list(c, CONFINE_SYSTEM, CONFINE_READ, LANDLOCK_ACCESS_FS_WRITE_FILE, sb);
    mcph_sb_addf(sb, "; read and write ");
    confine_list(c, CONFINE_SYSTEM, LANDLOCK_ACCESS_FS_WRITE_FILE, 0, sb);
    mcph_sb_addf(sb, "\n%s  not enforced: ", indent);
    if (confine_gaps(c, sb) > 0)
        mcph_sb_addstr(sb, "; ");
    /* What no kernel's Landlock enforces yet (up to ABI 7), said here and in isolation.md
     * rather than warned about at every start. */
    mcph_sb_addstr(sb, "a program it may read, run through the dynamic loader (ld.so PROGRAM: "
                       "exec confines execve, not what the loader maps)");
    if (c->network)
        mcph_sb_addstr(sb, "; connect() to a UNIX socket by path (network = yes; Landlock has "
                           "no rule for it)");
    mcph_sb_addch(sb, '\n');
}

/* --- Applying it, between fork and exec. --- */

static uint64_t confine_handled_fs(int abi)
{
    uint64_t fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1 */

    if (abi >= 2)
        fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        fs |= CONFINE_FS_TRUNCATE;
    if (abi >= 5)
        fs |= CONFINE_FS_IOCTL_DEV;
    return fs;
}

static int confine_drop_caps(void)
{
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];

    for (int cap = 0; cap < 64; cap++)
        (void)prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); /* without CAP_SETPCAP: none held */
    (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    memset(data, 0, sizeof(data));
    return syscall(SYS_capset, &head, data) == 0 ? 0 : errno;
}

static int confine_landlock(const struct confine *c)
{
    struct confine_ruleset attr = {.handled_access_fs = confine_handled_fs(c->abi)};
    size_t size = sizeof(attr.handled_access_fs);
    int rs, e = 0;

    if (c->abi >= 4 && !c->network) {
        attr.handled_access_net = CONFINE_NET_BIND_TCP | CONFINE_NET_CONNECT_TCP;
        size = offsetof(struct confine_ruleset, scoped);
    }
    if (c->abi >= 6) {
        attr.scoped = CONFINE_SCOPE_SIGNAL | CONFINE_SCOPE_ABSTRACT_UNIX;
        size = sizeof(attr);
    }
    rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0)
        return errno;
    for (size_t i = 0; e == 0 && i < c->npaths; i++) {
        const struct confine_path *p = &c->paths[i];
        struct landlock_path_beneath_attr rule;
        struct stat st;
        int fd = open(p->path, O_PATH | O_CLOEXEC | (p->same ? O_NOFOLLOW : 0));

        if (fd >= 0 &&
            (fstat(fd, &st) != 0 || (p->same && (st.st_dev != p->dev || st.st_ino != p->ino)))) {
            close(fd);
            fd = -1;
            errno = ESTALE; /* not the file the section named when it was read */
        }
        if (fd < 0) {
            e = p->from == CONFINE_SYSTEM ? 0 : errno;
            continue;
        }
        rule.allowed_access = p->access & attr.handled_access_fs;
        rule.parent_fd = fd;
        if (!S_ISDIR(st.st_mode))
            rule.allowed_access &= CONFINE_FILE_RIGHTS;
        if (rule.allowed_access != 0 &&
            syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
            e = errno;
        close(fd);
    }
    if (e == 0)
        e = confine_drop_caps();
    if (e == 0 && syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        e = errno;
    close(rs);
    return e;
}

int confine_apply(const struct confine *c)
{
    int e;

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    e = c->abi > 0 ? confine_landlock(c) : confine_drop_caps();
    if (e == 0 && c->seccomp) {
        struct sock_fprog prog = {.len = c->nbpf, .filter = c->bpf};

        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
            e = errno;
    }
    return e;
}
