/*
 * test_confine.c: client/confine.c on this kernel. Each attempt runs in a forked child, once
 * confined and once not (the control, which must succeed, so that a refusal is the
 * confinement's and not the attempt's own failure); the child exits with the errno it saw.
 * Where this kernel lacks Landlock, the file attempts check that confine_gaps() names it.
 */
#include "check.h"

#include "client/confine.h"
#include "plugin-api.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[PATH_MAX]; /* the scratch folder: in it, "in" is granted, "out" is not */
static char in_dir[PATH_MAX + 32], out_file[PATH_MAX + 32], link_out[PATH_MAX + 32];
static char write_in[PATH_MAX + 32], write_out[PATH_MAX + 32];
static char data_in[PATH_MAX + 32];

enum attempt {
    READ_OUT,   /* read a file beside the granted folder */
    READ_LINK,  /* read it through a symlink inside the granted folder */
    READ_IN,    /* read a file in it: must work confined too */
    WRITE_IN,   /* create a file in the write grant: must work confined too */
    WRITE_OUT,  /* create one outside */
    EXEC,       /* run a program not granted */
    PTRACE,     /* attach to the parent */
    KILL,       /* signal the parent */
    SOCKET,     /* open a TCP socket (network = no) */
    RAISE,      /* raise the hard limit of open files back */
    UNSHARE,    /* a new user namespace */
    PROC_OTHER, /* read the parent's /proc entry */
    PRLIMIT,    /* lower the parent's soft limit of open files */
    KILL_ALL,   /* kill(-1, 0): every process of the user (signal 0: nothing is sent) */
    TYPE_IN,    /* type into a terminal (on stdin, which is no terminal: ENOTTY unconfined) */
};

static int attempt_run(enum attempt a, pid_t parent)
{
    char buf[64];
    int fd;

    switch (a) {
    case READ_OUT:
    case READ_LINK:
    case READ_IN:
        fd = open(a == READ_OUT ? out_file : a == READ_LINK ? link_out : data_in, O_RDONLY);
        if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
            return errno;
        return 0;
    case WRITE_IN:
    case WRITE_OUT:
        fd = open(a == WRITE_IN ? write_in : write_out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        return fd < 0 ? errno : 0;
    case EXEC: {
        char name[] = "/usr/bin/true";
        char *const argv[] = {name, NULL};

        execv(argv[0], argv);
        return errno;
    }
    case PTRACE:
        return ptrace(PTRACE_ATTACH, parent, NULL, NULL) != 0 ? errno : 0;
    case KILL:
        return kill(parent, SIGURG) != 0 ? errno : 0; /* SIGURG: ignored by default */
    case SOCKET:
        fd = socket(AF_INET, SOCK_STREAM, 0);
        return fd < 0 ? errno : 0;
    case RAISE: {
        struct rlimit rl;

        getrlimit(RLIMIT_NOFILE, &rl);
        rl.rlim_max += 1;
        return setrlimit(RLIMIT_NOFILE, &rl) != 0 ? errno : 0;
    }
    case UNSHARE:
        return unshare(CLONE_NEWUSER) != 0 ? errno : 0;
    case PRLIMIT: {
        struct rlimit rl;

        if (prlimit(parent, RLIMIT_NOFILE, NULL, &rl) != 0)
            return errno;
        return prlimit(parent, RLIMIT_NOFILE, &rl, NULL) != 0 ? errno : 0;
    }
    case KILL_ALL:
        return kill(-1, 0) != 0 ? errno : 0;
    case TYPE_IN: {
        char c = 'x';

        return ioctl(0, TIOCSTI, &c) != 0 ? errno : 0;
    }
    case PROC_OTHER:
        snprintf(buf, sizeof(buf), "/proc/%d/environ", (int)parent);
        fd = open(buf, O_RDONLY);
        return fd < 0 ? errno : 0;
    }
    return EINVAL;
}

/* Whether this process holds CAP_SYS_RESOURCE (without it, no process raises a hard limit,
 * confined or not: the control of that attempt cannot succeed). */
static int has_sys_resource(void)
{
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];

    return syscall(SYS_capget, &head, data) == 0 &&
           (data[0].effective & (1u << CAP_SYS_RESOURCE)) != 0;
}

/* What the child saw: 0, or its errno; -1 when it died or could not be confined. */
static int attempt(const struct confine *c, enum attempt a)
{
    pid_t parent = getpid(), pid = fork();
    int st;

    if (pid == 0) {
        struct rlimit rl = {256, 256};

        setrlimit(RLIMIT_NOFILE, &rl); /* lowered first, as max_files does */
        if (c != NULL && confine_apply(c) != 0)
            _exit(255);
        _exit(attempt_run(a, parent));
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 255)
        return -1;
    return WEXITSTATUS(st);
}

static int write_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    if (fd < 0 || write(fd, "secret\n", 7) != 7)
        return -1;
    return close(fd);
}

static void setup(void)
{
    char rel[256];

    if (check_tmp(rel, sizeof(rel), "confine") == NULL || realpath(rel, tmp) == NULL)
        return;
    snprintf(in_dir, sizeof(in_dir), "%s/in", tmp);
    snprintf(out_file, sizeof(out_file), "%s/out-secret", tmp);
    snprintf(link_out, sizeof(link_out), "%s/in/link", tmp);
    snprintf(write_in, sizeof(write_in), "%s/in/new", tmp);
    snprintf(write_out, sizeof(write_out), "%s/new-out", tmp);
    mkdir(in_dir, 0700);
    snprintf(data_in, sizeof(data_in), "%s/in/data", tmp);
    write_file(out_file);
    write_file(data_in);
    unlink(link_out);
    (void)symlink(out_file, link_out);
}

static void test_attempts(void)
{
    static const struct {
        enum attempt a;
        const char *name;
        int refused; /* the errno the confined child must see; 0: it must succeed */
        int file;    /* a file rule (Landlock's) */
    } cases[] = {
        {READ_OUT, "read outside", EACCES, 1},   {READ_LINK, "symlink out", EACCES, 1},
        {WRITE_IN, "write inside", 0, 1},        {READ_IN, "read inside", 0, 1},
        {WRITE_OUT, "write outside", EACCES, 1}, {EXEC, "exec not granted", EACCES, 1},
        {PTRACE, "ptrace mcph", EPERM, 0},       {KILL, "signal mcph", EPERM, 1},
        {SOCKET, "socket", EACCES, 0},           {RAISE, "raise nofile", EPERM, 0},
        {UNSHARE, "user namespace", EPERM, 0},   {PROC_OTHER, "parent's /proc", EACCES, 1},
        {PRLIMIT, "parent's limits", EPERM, 0},  {KILL_ALL, "kill(-1)", EPERM, 0},
        {TYPE_IN, "TIOCSTI", EPERM, 0},
    };
    struct mcph_strbuf why = MCPH_STRBUF_INIT, gaps = MCPH_STRBUF_INIT;
    struct confine *c = NULL;
    char rule[PATH_MAX + 64];
    int landlock;

    setup();
    snprintf(rule, sizeof(rule), "\"%s\"", in_dir);
    if (!CHECK_INT_EQ(confine_new(&c, NULL, rule, NULL, 0, NULL, NULL, &why), MCPH_OK))
        return;
    landlock = confine_gaps(c, &gaps) == 0 || strstr(gaps.buf, "no Landlock") == NULL;
    if (!landlock)
        printf("test_confine: no Landlock here; the file attempts check the gap is named\n");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int untried = cases[i].a == PTRACE || cases[i].a == KILL ||
                      (cases[i].a == RAISE && !has_sys_resource());
        int control = untried ? 0 : attempt(NULL, cases[i].a);

        if (cases[i].a == TYPE_IN && control == ENOTTY)
            control = 0; /* tried, and it reached the terminal check: not refused before it */
        if (cases[i].a == UNSHARE && control == EINVAL)
            control = 0; /* a process of threads (ThreadSanitizer's child has one) may not */
        int confined = attempt(c, cases[i].a);

        unlink(write_in);
        unlink(write_out);
        /* The control proves the attempt can work; ptrace and kill are not tried on the test
         * itself unconfined (an attach would stop it), nor a raise without CAP_SYS_RESOURCE. */
        if (!CHECK_INT_EQ(control, 0))
            fprintf(stderr, "    control of '%s' failed: %s\n", cases[i].name, strerror(control));
        if (cases[i].file && !landlock) {
            CHECK(strstr(gaps.buf, "file rules") != NULL);
            continue;
        }
        if (cases[i].a == KILL && strstr(gaps.buf, "signals to processes outside") != NULL)
            continue; /* Landlock before ABI 6: the gap is named, as it must be */
        if (!CHECK_INT_EQ(confined, cases[i].refused))
            fprintf(stderr, "    '%s' confined: %s\n", cases[i].name,
                    confined > 0    ? strerror(confined)
                    : confined == 0 ? "allowed"
                                    : "died");
    }
    confine_free(c);
    mcph_sb_release(&why);
    mcph_sb_release(&gaps);
}

/* A path of the rules that does not exist is refused by name; network = yes lets a socket
 * be opened; the description names each rule. */
static void test_rules(void)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT, text = MCPH_STRBUF_INIT;
    struct confine *c = NULL, *d = NULL;

    setup();
    CHECK_INT_EQ(confine_new(&c, "\"/no/such/folder\"", NULL, NULL, 0, NULL, NULL, &why),
                 MCPH_ERR_INVALID);
    CHECK(c == NULL);
    CHECK(strstr(why.buf, "read names '/no/such/folder'") != NULL);
    CHECK_INT_EQ(confine_new(&c, NULL, NULL, "'/usr/bin/true'", 1, "/bin/sh", "/usr/bin", &why),
                 MCPH_OK);
    CHECK_INT_EQ(attempt(c, SOCKET), 0);
    CHECK_INT_EQ(attempt(c, EXEC), 0);
    confine_describe(c, "", &text);
    CHECK(strstr(text.buf, "exec:    /usr/bin/true") != NULL);
    CHECK(strstr(text.buf, "network: yes") != NULL);
    CHECK(strstr(text.buf, "ld-linux") != NULL || strstr(text.buf, "ld-musl") != NULL);
    CHECK_INT_EQ(confine_new(&d, NULL, NULL, "'/usr/bin/true'", 1, "/bin/sh", "/usr/bin", &why),
                 MCPH_OK);
    CHECK_INT_EQ(confine_same(c, d), 1);
    confine_free(d);
    CHECK_INT_EQ(confine_new(&d, NULL, NULL, "'/usr/bin/true'", 0, "/bin/sh", "/usr/bin", &why),
                 MCPH_OK);
    CHECK_INT_EQ(confine_same(c, d), 0);
    CHECK_INT_EQ(confine_same(c, NULL), 0);
    confine_free(c);
    confine_free(d);
    mcph_sb_release(&why);
    mcph_sb_release(&text);
}

/* A rule's path replaced by a link since the confinement was built: the child refuses to
 * start (ESTALE) rather than grant where the link leads, and confine_changed names it. */
static void test_swapped(void)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    struct confine *c = NULL;
    char dir[PATH_MAX + 32], moved[PATH_MAX + 40], rule[PATH_MAX + 64];

    setup();
    snprintf(dir, sizeof(dir), "%s/swap", tmp);
    snprintf(moved, sizeof(moved), "%s/swap.old", tmp);
    rmdir(moved);
    unlink(dir);
    rmdir(dir);
    if (!CHECK_INT_EQ(mkdir(dir, 0700), 0))
        return;
    snprintf(rule, sizeof(rule), "\"%s\"", dir);
    CHECK_INT_EQ(confine_new(&c, rule, NULL, NULL, 0, NULL, NULL, &why), MCPH_OK);
    CHECK_INT_EQ(attempt(c, WRITE_OUT), EACCES); /* it starts, confined */
    CHECK_INT_EQ(confine_changed(c, &why), 0);
    CHECK_INT_EQ(rename(dir, moved), 0);
    CHECK_INT_EQ(symlink(tmp, dir), 0);
    CHECK_INT_EQ(attempt(c, READ_OUT), -1); /* confine_apply failed: it never ran */
    CHECK_INT_EQ(confine_changed(c, &why), 1);
    CHECK(strstr(why.buf, "swap is gone or is another file") != NULL);
    unlink(dir);
    rmdir(moved);
    confine_free(c);
    mcph_sb_release(&why);
}

static const struct check_test tests[] = {
    {"attempts", test_attempts},
    {"rules", test_rules},
    {"swapped", test_swapped},
    {0},
};

int main(void)
{
    return check_main("test_confine", tests);
}
