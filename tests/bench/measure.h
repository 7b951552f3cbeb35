/*
 * measure.h: what both bench drivers (driver.c over stdio, http-driver.c over HTTP) measure
 * the same way: the clock, a process's CPU time and context switches, percentiles, and the
 * table's cells. Header-only (static inline): each driver is one program of its own.
 */
#ifndef MCPH_BENCH_MEASURE_H
#define MCPH_BENCH_MEASURE_H

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

static inline double measure_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Context switches (voluntary and not) of every thread of pid, so far. */
static inline double measure_ctxsw(pid_t pid)
{
    char path[64], line[256];
    double total = 0;
    struct dirent *e;
    DIR *dir;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    dir = opendir(path);
    if (dir == NULL)
        return NAN;
    while ((e = readdir(dir)) != NULL) {
        FILE *f;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", (int)pid, e->d_name);
        f = fopen(path, "r");
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
            if (strstr(line, "ctxt_switches:") != NULL)
                total += strtod(strchr(line, ':') + 1, NULL);
        }
        if (f != NULL)
            fclose(f);
    }
    closedir(dir);
    return total;
}

static inline int measure_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Nearest-rank quantile q of v[0..n), which it sorts. NAN when n is 0. */
static inline double measure_quantile(double *v, size_t n, double q)
{
    size_t rank;

    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), measure_cmp_double);
    rank = (size_t)ceil(q * (double)n);
    return v[rank > 0 ? rank - 1 : 0];
}

/* "%.*f" of v in a field of width, or "-" for NAN. */
static inline void measure_put(double v, int decimals, int width)
{
    if (isnan(v))
        fprintf(stdout, " %*s", width, "-");
    else
        fprintf(stdout, " %*.*f", width, decimals, v);
}

static inline void measure_put_ratio(double r, int width)
{
    char text[32];

    if (isnan(r) || isinf(r))
        snprintf(text, sizeof(text), "-");
    else
        snprintf(text, sizeof(text), "%.*fx", r < 10 ? 2 : r < 100 ? 1 : 0, r);
    fprintf(stdout, " %*s", width, text);
}

/* CPU seconds of pid (every thread, user and system), or of this process when pid is 0. */
static inline double measure_cpu(pid_t pid)
{
    clockid_t clock = CLOCK_PROCESS_CPUTIME_ID;
    struct timespec ts;

    if (pid > 0 && clock_getcpuclockid(pid, &clock) != 0)
        return NAN;
    if (clock_gettime(clock, &ts) != 0)
        return NAN;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* pid and the processes under it (children, theirs, ...), at most max, into pids (pids[0] is
 * pid): /proc/PID/task/TID/children of every thread. Their count. */
static inline size_t measure_tree(pid_t pid, pid_t *pids, size_t max)
{
    size_t n = 1;

    pids[0] = pid;
    for (size_t i = 0; i < n; i++) {
        char path[96];
        struct dirent *e;
        DIR *dir;

        snprintf(path, sizeof(path), "/proc/%d/task", (int)pids[i]);
        dir = opendir(path);
        while (dir != NULL && n < max && (e = readdir(dir)) != NULL) {
            FILE *f;
            int child;

            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)pids[i], e->d_name);
            f = fopen(path, "r");
            while (f != NULL && n < max && fscanf(f, "%d", &child) == 1)
                pids[n++] = (pid_t)child;
            if (f != NULL)
                fclose(f);
        }
        if (dir != NULL)
            closedir(dir);
    }
    return n;
}

/* One figure (of, per process) added up over the n processes of pids; one that has ended
 * counts 0. */
static inline double measure_tree_sum(const pid_t *pids, size_t n, double (*of)(pid_t))
{
    double sum = 0.0;

    for (size_t i = 0; i < n; i++) {
        double v = of(pids[i]);

        sum += isnan(v) ? 0.0 : v;
    }
    return sum;
}

/* CPU seconds of the n processes of pids. */
static inline double measure_tree_cpu(const pid_t *pids, size_t n)
{
    return measure_tree_sum(pids, n, measure_cpu);
}

/* Context switches of every thread of the n processes of pids. */
static inline double measure_tree_ctxsw(const pid_t *pids, size_t n)
{
    return measure_tree_sum(pids, n, measure_ctxsw);
}

#endif
