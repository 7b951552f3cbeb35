/*
 * exec.c: the exec plugin. Runs the commands listed in its INI section, and nothing else.
 *
 * Each command becomes a tool of its own. A call runs the command's argv directly (there is
 * no shell, so ; | $() ` > and the like are ordinary characters), with stdin from /dev/null,
 * a minimal environment, a time limit, a cap on the output, progress reports, and
 * cancellation; see run.c for how it is run and stopped.
 *
 * What a command starts stops with it, within these limits (spawn.c has the details):
 * - The command dies with mcph (PR_SET_PDEATHSIG), even when mcph is killed with SIGKILL;
 *   the kernel drops that for a set-user-ID or set-group-ID program, or one with file
 *   capabilities. When it exits, the rest of its process group is killed.
 * - With guard = no (the default), a process that leaves the group (setsid, a daemon)
 *   outlives the call, and when mcph is killed with SIGKILL, whatever the command started
 *   (but the command) outlives mcph.
 * - guard = yes closes both, without privileges: each command runs under a guard process,
 *   a child subreaper (PR_SET_CHILD_SUBREAPER) that dies with mcph too, and that kills every
 *   descendant of the command when the command exits, is stopped, or mcph dies. It costs
 *   one more process per call, and needs /proc/thread-self/children to find escaped ones.
 *   Nothing but a cgroup (and root, or a delegated one) could hold a process that a
 *   command hands over to another process outside its tree (through a socket to a service
 *   that starts it, say); the plugin does not try.
 *
 *   [plugin.exec]
 *   path = exec.so
 *   commands = date "The time in UTC": /bin/date -u +%Y-%m-%dT%H:%M:%SZ
 *       uname: /bin/uname -a
 *       count_lines "Count the lines of a file": /usr/bin/wc -l <{file:file}
 *       grep: /bin/grep -n -e {pattern} -- {file:file} {file2?:file}
 *       list: /bin/ls -l -- {dir?:dir}
 *
 * The grammar of `commands`, one command per line (continuation lines are indented):
 *   NAME ["DESCRIPTION"] : /ABSOLUTE/EXECUTABLE [WORD...]
 * - NAME is the tool's name: 1-64 of A-Za-z0-9 _ . -. The description, in quotes, is
 *   optional and shown to the model with the command's template.
 * - The executable is an absolute path (no PATH lookup). init() checks that it is an
 *   executable regular file, and that neither it nor its folder (after symlinks) is
 *   writable by group or others, as mcph requires of a plugin's .so; a command that fails a
 *   check is skipped, with a log line naming the file and the fix (chmod go-w ...), and the
 *   others are served.
 * - Words are separated by spaces. '...' quotes literally; in "..." a backslash escapes " and
 *   \; adjacent parts join into one word, as in a shell ("--label=a b" is one word).
 * - An unquoted word {name} is a placeholder: the call's string argument `name` (required),
 *   passed as exactly one argument, never split or expanded. {name?} is optional: dropped
 *   when the argument is absent. Any other unquoted word containing { or } is refused;
 *   quote it to pass braces literally. An untyped placeholder takes any text: never use one
 *   for a file name the client chooses (wc -l -- {file} would count /etc/shadow's lines).
 * - A typed placeholder takes a path beneath the command's folder (the cwd key):
 *     {name:file}  a regular file         {name?:file}  the same, optional
 *     {name:dir}   a folder ("." is cwd)  {name?:dir}
 *     {name:path}  either                 {name?:path}
 *   The value must be relative (not empty, not absolute), have no '..' component, and
 *   resolve beneath cwd: openat2() with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS from a
 *   descriptor of cwd, so a symlink may point elsewhere inside cwd but never out of it (nor
 *   absolutely, nor through /proc magic links); what it names must be of the type (a FIFO,
 *   socket or device is refused). The plugin opens it once, checks what it opened, and
 *   hands that descriptor to the command, whose argument is /dev/fd/N (a folder:
 *   /dev/fd/N/) instead of the value: the command opens exactly what was checked, even if
 *   someone swaps a component of the path for a symlink leading out meanwhile. It shows
 *   /dev/fd/N in its output, though, and a command that needs the real name (to pick a
 *   language from the suffix, or to write beside the file) cannot get it from a typed
 *   placeholder (path.c has the details). What lies inside a folder given this way the
 *   command opens by name. A hard link inside cwd counts as inside. At most
 *   EXEC_PATHS_MAX (16) typed placeholder words a command. Needs Linux 5.6 (openat2) and
 *   /proc; a command with a typed placeholder is skipped, with a log line, without them.
 * - <{name:file} (or <{name?:file}) is no argument: the file, checked and opened the same
 *   way, is the command's stdin (/dev/null when an optional one is absent), and the command
 *   never sees a name: wc -l <{file:file} prints only the count. One such word a command.
 * - A value for a placeholder must not start with '-', '+' or '@': many commands read
 *   these as an option (-x, and +x for some, such as date or tail), or as a file of more
 *   arguments (@file, as gcc and java do). A literal -- before the placeholder in the
 *   template lifts this rule for it. The plugin cannot know which options take an argument,
 *   so a -- that is really an option's argument (grep -e -- {x}) lifts it all the same:
 *   write -- only where it ends the options. Control characters other than tab and newline
 *   are refused, and so is a value longer than max_arg bytes.
 * - Never put a placeholder where the command reads code or an expression of its own:
 *   find's expression (a value "(" or "!" or "-delete" there is an operator), the program of
 *   awk or sed, the script of sh -c (pass values to a script as "$1", after the script and
 *   $0, as the examples do). A placeholder only keeps the value in one argument; what the
 *   command makes of that argument is the template's business.
 * - A line starting with # or ; is a comment. inih also ends a line at " ;" (a semicolon
 *   after white space), so write `a; b` inside a script, not `a ; b`.
 *
 * A call's result has a text item with the output (stdout; then stderr after a "[stderr]"
 * line when there is any) and a structured result {exit_code, signal, stdout, stderr,
 * truncated, timed_out, duration_ms}. A non-zero exit, a signal or the time limit is a tool
 * error whose first item says so; the output is still there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define EXEC_WHY_LEN 512
#define EXEC_OPTION_STARTS "-+@" /* first characters a command may read as an option */

static const char exec_output_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"exit_code\":{\"type\":[\"integer\",\"null\"],\"description\":\"The exit status, or null "
    "when a signal ended the process.\"},"
    "\"signal\":{\"type\":[\"string\",\"null\"],\"description\":\"The signal that ended the "
    "process (SIGTERM, SIGKILL, ...), or null.\"},"
    "\"stdout\":{\"type\":\"string\",\"description\":\"What it wrote to stdout (invalid UTF-8 "
    "shown as U+FFFD).\"},"
    "\"stderr\":{\"type\":\"string\",\"description\":\"What it wrote to stderr.\"},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"A stream went past max_output "
    "bytes and was cut there.\"},"
    "\"timed_out\":{\"type\":\"boolean\",\"description\":\"It was stopped at the time "
    "limit.\"},"
    "\"duration_ms\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"required\":[\"exit_code\",\"signal\",\"stdout\",\"stderr\",\"truncated\",\"timed_out\","
    "\"duration_ms\"],\"additionalProperties\":false}";

static const char *const exec_stream_names[2] = {"stdout", "stderr"};

/* --- Arguments. Each check returns MCPH_OK or MCPH_ERR_INVALID with the reason in why. --- */

/* A control character: C0 but tab and newline, DEL, or C1 (U+0080-U+009F, C2 80-9F). */
static long exec_control_at(const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p != '\0'; p++) {
        if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f ||
            (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return (long)(p - (const unsigned char *)v);
    }
    return -1;
}

static int exec_check_value(const struct exec *ex, const struct exec_word *w, const char *v,
                            char *why, size_t n)
{
    size_t len = strlen(v);
    long at = exec_control_at(v);

    if (len > ex->max_arg) {
        snprintf(why, n,
                 "the argument \"%s\" is %zu bytes long; the limit is %zu bytes per argument "
                 "(max_arg): pass a shorter value",
                 w->text, len, ex->max_arg);
    } else if (at >= 0) {
        unsigned char c = (unsigned char)v[at];

        snprintf(why, n,
                 "the argument \"%s\" contains the control character U+%04X at byte %ld; only "
                 "tab and newline are allowed: remove it",
                 w->text, c == 0xc2 ? (unsigned char)v[at + 1] : c, at);
    } else if (v[0] != '\0' && strchr(EXEC_OPTION_STARTS, v[0]) != NULL && !w->dash_ok) {
        snprintf(why, n,
                 "the argument \"%s\" starts with '%c', so the command could take it for an "
                 "option (-x, +x) or a file of arguments (@file); it is refused because the "
                 "command has no \"--\" before {%s}: pass a value that does not start with "
                 "'-', '+' or '@' (for a file name, write ./%c...)",
                 w->text, v[0], w->text, v[0]);
    } else {
        return MCPH_OK;
    }
    return MCPH_ERR_INVALID;
}

/* One placeholder: *value is the argument, or NULL when an optional one is absent. */
static int exec_arg(const struct exec *ex, const struct exec_word *w, struct mcph_call *call,
                    const char **value, char *why, size_t n)
{
    int rc = ex->host->arg_string(call, w->text, value);

    if (rc == MCPH_ERR_ABSENT && w->optional) {
        *value = NULL;
        return MCPH_OK;
    }
    if (rc == MCPH_ERR_ABSENT)
        snprintf(why, n, "missing the argument \"%s\" (a string): the command needs it for {%s}",
                 w->text, w->text);
    else if (rc == MCPH_ERR_TYPE)
        snprintf(why, n, "the argument \"%s\" must be a string", w->text);
    else if (rc == MCPH_OK)
        return exec_check_value(ex, w, *value, why, n);
    else
        return rc;
    return MCPH_ERR_INVALID;
}

/* Fills argv (room for every word and a NULL) from the template and the call's arguments;
 * path placeholders are opened into files, and argv names their descriptors. */
static int exec_argv(const struct exec *ex, const struct exec_cmd *cmd, struct mcph_call *call,
                     char **argv, struct exec_files *files, char *why, size_t n)
{
    size_t argc = 0, total = 0;

    for (size_t i = 0; i < cmd->nwords; i++) {
        const struct exec_word *w = &cmd->words[i];
        const char *v = w->text;

        if (w->param) {
            int rc = exec_arg(ex, w, call, &v, why, n);
            if (rc == MCPH_OK && v != NULL && w->kind != EXEC_KIND_TEXT)
                rc = exec_path_open(ex, w, v, files, &v, why, n);
            if (rc != MCPH_OK)
                return rc;
            if (v == NULL)
                continue;
        }
        argv[argc++] = (char *)v; /* posix_spawn's argv is char *const[], and never written */
        total += strlen(v) + 1;
    }
    argv[argc] = NULL;
    if (total > EXEC_ARGV_TOTAL_MAX) {
        snprintf(why, n,
                 "the arguments make a command line of %zu bytes; the limit is %d bytes: pass "
                 "shorter values",
                 total, EXEC_ARGV_TOTAL_MAX);
        return MCPH_ERR_INVALID;
    }
    return MCPH_OK;
}

/* --- The result. --- */

static void exec_signal_name(char *buf, size_t n, int sig)
{
    const char *abbrev = sigabbrev_np(sig);

    if (abbrev != NULL)
        snprintf(buf, n, "SIG%s", abbrev);
    else
        snprintf(buf, n, "signal %d", sig);
}

/* Why the call is a tool error, or 0 when the command ran and exited 0 by itself. */
static int exec_failure(const struct exec *ex, const struct exec_cmd *cmd,
                        const struct exec_result *res, char *why, size_t n)
{
    char sig[32];
    int cut = res->cut[0] ? 0 : 1;

    if (res->signal)
        exec_signal_name(sig, sizeof(sig), res->signal);
    else
        snprintf(sig, sizeof(sig), "exit status %d", res->exit_code);
    if (res->timed_out)
        snprintf(why, n,
                 "%s did not finish within %lld ms (timeout_ms) and was stopped (%s); its output "
                 "so far follows",
                 cmd->name, (long long)ex->timeout_ms, sig);
    else if ((res->cut[0] || res->cut[1]) && (res->signal || res->exit_code != 0))
        snprintf(why, n,
                 "%s wrote more than %zu bytes to %s (max_output) and was stopped; the output is "
                 "cut there",
                 cmd->name, ex->max_output, exec_stream_names[cut]);
    else if (!res->status_known)
        snprintf(why, n, "%s ran, but its exit status could not be read", cmd->name);
    else if (res->signal)
        snprintf(why, n, "%s was ended by %s", cmd->name, sig);
    else if (res->exit_code != 0)
        snprintf(why, n, "%s exited with status %d", cmd->name, res->exit_code);
    else
        return 0;
    return 1;
}

/* The text item: stdout, then stderr under a "[stderr]" line, then what was cut. */
static void exec_text(const struct exec *ex, const struct exec_result *res, char *const clean[2],
                      struct mcph_strbuf *sb)
{
    mcph_sb_addstr(sb, clean[0]);
    if (res->len[1] > 0) {
        if (res->len[0] > 0 && clean[0][strlen(clean[0]) - 1] != '\n')
            mcph_sb_addstr(sb, "\n");
        mcph_sb_addstr(sb, "[stderr]\n");
        mcph_sb_addstr(sb, clean[1]);
    }
    for (int i = 0; i < 2; i++) {
        if (res->cut[i])
            mcph_sb_addf(sb, "%s[%s cut at %zu bytes: max_output]", sb->len ? "\n" : "",
                         exec_stream_names[i], ex->max_output);
    }
    if (sb->len == 0)
        mcph_sb_addstr(sb, "(no output)");
}

static void exec_structured(const struct exec_result *res, char *const clean[2],
                            struct mcph_strbuf *sb)
{
    char sig[32];

    if (res->status_known && !res->signal)
        mcph_sb_addf(sb, "{\"exit_code\":%d,\"signal\":null", res->exit_code);
    else if (res->signal) {
        exec_signal_name(sig, sizeof(sig), res->signal);
        mcph_sb_addf(sb, "{\"exit_code\":null,\"signal\":\"%s\"", sig);
    } else {
        mcph_sb_addstr(sb, "{\"exit_code\":null,\"signal\":null");
    }
    mcph_sb_addstr(sb, ",\"stdout\":");
    mcph_sb_addjson(sb, clean[0], strlen(clean[0]));
    mcph_sb_addstr(sb, ",\"stderr\":");
    mcph_sb_addjson(sb, clean[1], strlen(clean[1]));
    mcph_sb_addf(sb, ",\"truncated\":%s,\"timed_out\":%s,\"duration_ms\":%lld}",
                 res->cut[0] || res->cut[1] ? "true" : "false", res->timed_out ? "true" : "false",
                 (long long)res->duration_ms);
}

static int exec_report(const struct exec *ex, const struct exec_cmd *cmd, struct mcph_call *call,
                       const struct exec_result *res)
{
    const struct mcph_host *host = ex->host;
    char why[EXEC_WHY_LEN];
    char *clean[2] = {exec_utf8_clean(res->out[0], res->len[0], NULL),
                      exec_utf8_clean(res->out[1], res->len[1], NULL)};
    struct mcph_strbuf text = MCPH_STRBUF_INIT, json = MCPH_STRBUF_INIT;
    int rc = MCPH_ERR_NOMEM;

    if (clean[0] != NULL && clean[1] != NULL) {
        exec_text(ex, res, clean, &text);
        exec_structured(res, clean, &json);
    }
    if (clean[0] != NULL && clean[1] != NULL && !text.nomem && !json.nomem) {
        rc = MCPH_OK;
        if (exec_failure(ex, cmd, res, why, sizeof(why)))
            rc = host->tool_error(call, "%s", why);
        if (rc == MCPH_OK)
            rc = host->text(call, text.buf);
        if (rc == MCPH_OK)
            rc = host->structured(call, json.buf);
    }
    mcph_sb_release(&text);
    mcph_sb_release(&json);
    free(clean[0]);
    free(clean[1]);
    return rc;
}

/* --- The handler shared by every command. --- */

static int exec_call(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct exec *ex = state;
    /* The row's data: the command it was defined for (ex->cmds is fixed after init). */
    const struct exec_cmd *cmd = host->call_data(call);
    struct exec_result res = {0};
    struct exec_files files;
    char why[EXEC_WHY_LEN];
    char **argv;
    int rc;

    if (cmd == NULL) /* only if mcph called for a tool this instance did not define */
        return host->error(call, MCPH_ERR, "exec: no command is named '%s' in [plugin.%s]",
                           host->call_name(call) ? host->call_name(call) : "", host->instance);
    argv = calloc(cmd->nwords + 1, sizeof(*argv));
    if (argv == NULL)
        return MCPH_ERR_NOMEM;
    exec_files_init(&files);
    rc = exec_argv(ex, cmd, call, argv, &files, why, sizeof(why));
    if (rc == MCPH_ERR_INVALID) {
        rc = host->tool_error(call, "%s refused: %s", cmd->name, why);
    } else if (rc == MCPH_OK) {
        rc = exec_run(ex, argv, &files, call, &res);
        if (rc == MCPH_OK && res.cancelled)
            rc = host->tool_error(call, "%s was cancelled and stopped", cmd->name);
        else if (rc == MCPH_OK && res.spawn_errno != 0)
            rc = host->tool_error(call, "%s could not be started (%s in %s): %s", cmd->name,
                                  argv[0], ex->cwd, strerrordesc_np(res.spawn_errno));
        else if (rc == MCPH_OK)
            rc = exec_report(ex, cmd, call, &res);
    }
    exec_result_release(&res);
    exec_files_release(&files);
    free(argv);
    return rc;
}

/* --- Definitions. --- */

/* Whether every use of the placeholder named like w follows a literal "--". */
static int exec_dash_ok(const struct exec_cmd *cmd, const char *name)
{
    for (size_t i = 0; i < cmd->nwords; i++) {
        if (cmd->words[i].param && strcmp(cmd->words[i].text, name) == 0 && !cmd->words[i].dash_ok)
            return 0;
    }
    return 1;
}

/* Whether word i is the first use of its placeholder. */
static int exec_first_use(const struct exec_cmd *cmd, size_t i)
{
    for (size_t j = 0; j < i; j++) {
        if (cmd->words[j].param && strcmp(cmd->words[j].text, cmd->words[i].text) == 0)
            return 0;
    }
    return 1;
}

/* What a path placeholder's value must name, for its schema. */
static const char *const exec_kind_wants[] = {
    [EXEC_KIND_TEXT] = "",
    [EXEC_KIND_FILE] = " A path relative to the command's folder, naming a regular file inside "
                       "it: not absolute, no '..', no symlink leading out.",
    [EXEC_KIND_DIR] = " A path relative to the command's folder, naming a folder inside it (. is "
                      "the folder itself): not absolute, no '..', no symlink leading out.",
    [EXEC_KIND_PATH] = " A path relative to the command's folder, naming a regular file or a "
                       "folder inside it: not absolute, no '..', no symlink leading out.",
};

/* What the command gets for a placeholder word, for its schema. */
static const char *exec_word_gets(const struct exec_word *w)
{
    if (w->to_stdin)
        return "the command's stdin.";
    if (w->kind == EXEC_KIND_TEXT)
        return "one argument, passed as is.";
    return "one argument.";
}

static void exec_schema_property(const struct exec *ex, const struct exec_cmd *cmd,
                                 const struct exec_word *w, struct mcph_strbuf *sb)
{
    mcph_sb_addf(sb,
                 "\"%s\":{\"type\":\"string\",\"maxLength\":%zu,\"description\":\"Fills "
                 "%s{%s%s%s%s}: %s%s%s At most %zu bytes; no control characters but tab and "
                 "newline%s.\"}",
                 w->text, ex->max_arg, w->to_stdin ? "<" : "", w->text, w->optional ? "?" : "",
                 w->kind != EXEC_KIND_TEXT ? ":" : "", exec_kind_name(w->kind), exec_word_gets(w),
                 exec_kind_wants[w->kind],
                 w->kind == EXEC_KIND_TEXT || w->to_stdin
                     ? ""
                     : " The command gets it opened, as /dev/fd/N, and names it so in its output.",
                 ex->max_arg,
                 exec_dash_ok(cmd, w->text) ? "" : "; must not start with '-', '+' or '@'");
}

/* The input schema: one string property per placeholder, the required ones listed, nothing
 * else accepted. Placeholder names are letters, digits and _, so they need no escaping. */
static void exec_input_schema(const struct exec *ex, const struct exec_cmd *cmd,
                              struct mcph_strbuf *sb)
{
    int any = 0;

    mcph_sb_addstr(sb, "{\"type\":\"object\",\"properties\":{");
    for (size_t i = 0; i < cmd->nwords; i++) {
        if (cmd->words[i].param && exec_first_use(cmd, i)) {
            mcph_sb_addstr(sb, any++ ? "," : "");
            exec_schema_property(ex, cmd, &cmd->words[i], sb);
        }
    }
    mcph_sb_addstr(sb, "}");
    any = 0;
    for (size_t i = 0; i < cmd->nwords; i++) {
        if (cmd->words[i].param && !cmd->words[i].optional && exec_first_use(cmd, i))
            mcph_sb_addf(sb, "%s\"%s\"", any++ ? "," : ",\"required\":[", cmd->words[i].text);
    }
    mcph_sb_addstr(sb, any ? "]" : "");
    mcph_sb_addstr(sb, ",\"additionalProperties\":false}");
}

static void exec_description(const struct exec *ex, const struct exec_cmd *cmd,
                             struct mcph_strbuf *sb)
{
    if (cmd->description != NULL)
        mcph_sb_addf(sb, "%s\n\n", cmd->description);
    mcph_sb_addf(sb,
                 "Runs: %s\nDirectly, without a shell%s. Time limit %lld ms; stdout and "
                 "stderr are each cut at %zu bytes. A non-zero exit is an error.",
                 cmd->display,
                 cmd->nparams > 0 ? ": each {placeholder} becomes exactly one argument" : "",
                 (long long)ex->timeout_ms, ex->max_output);
}

static int exec_define(const struct exec *ex, const struct exec_cmd *cmd)
{
    struct mcph_strbuf schema = MCPH_STRBUF_INIT, description = MCPH_STRBUF_INIT;
    int rc = MCPH_ERR_NOMEM;

    exec_input_schema(ex, cmd, &schema);
    exec_description(ex, cmd, &description);
    if (!schema.nomem && !description.nomem) {
        struct mcph_tool tool = {
            .name = cmd->name,
            .description = description.buf,
            .input_schema = schema.buf,
            .output_schema = exec_output_schema,
            .call = exec_call,
            .data = cmd,
        };
        rc = ex->host->define_tool(ex->host, &tool);
    }
    mcph_sb_release(&schema);
    mcph_sb_release(&description);
    return rc;
}

/* --- Lifecycle. --- */

static void exec_shutdown(void *state)
{
    struct exec *ex = state;

    if (ex == NULL)
        return;
    exec_spec_release(ex);
    free(ex);
}

static int exec_init(const struct mcph_host *host, void **state)
{
    struct exec *ex;
    int rc;

    ex = calloc(1, sizeof(*ex));
    if (ex == NULL)
        return MCPH_ERR_NOMEM;
    ex->host = host;
    ex->cwd_fd = -1;
    rc = exec_spec_read(ex);
    for (size_t i = 0; rc == MCPH_OK && i < ex->ncmds; i++) {
        rc = exec_define(ex, &ex->cmds[i]);
        if (rc == MCPH_ERR_INVALID) /* mcph said why; the other commands are still served */
            rc = MCPH_OK;
    }
    if (rc == MCPH_OK && ex->ncmds == 0)
        host->log(host, MCPH_LOG_WARNING, "[plugin.%s] serves no command: every one was skipped",
                  host->instance);
    if (rc != MCPH_OK) {
        exec_shutdown(ex);
        return rc;
    }
    *state = ex;
    return MCPH_OK;
}

static const struct mcph_config_key exec_config_keys[] = {
    {
        .name = "commands",
        .description =
            "The commands served, one per line (continue on indented lines), each "
            "`NAME [\"DESCRIPTION\"]: /ABSOLUTE/EXECUTABLE [WORD...]`. NAME is the tool name "
            "(1-64 of A-Za-z0-9_.-). Words are split on spaces; '...' and \"...\" quote (in "
            "\"...\" a backslash escapes \" and \\). An unquoted {name} is a placeholder filled "
            "by exactly one argument from the string parameter `name`; {name?} is optional and "
            "dropped when absent. {name:file}, {name:dir} and {name:path} (optional: "
            "{name?:file}, ...) take a relative path that must resolve beneath cwd (no "
            "absolute path, no '..', no symlink leading out) to a regular file, a folder, or "
            "either, opened once: the command gets /dev/fd/N (a folder: /dev/fd/N/), not the "
            "path, so nobody can swap what it opens; <{name:file} makes the file its stdin "
            "instead. Use them for every file name a client "
            "chooses: an untyped {name} takes any text, /etc/shadow included. A value may "
            "start with '-', '+' or '@' only after a literal -- in the template (any --: the "
            "plugin cannot tell an option's argument), and must not go where the command "
            "reads code or expressions (find's expression, an awk program). No shell and no PATH "
            "lookup; a command whose executable is not an "
            "executable file, or is writable by group or others (it or its folder), is "
            "skipped with a log line.",
        .required = 1,
    },
    {.name = "timeout_ms",
     .description = "Time limit of one run in milliseconds (1-600000); then SIGTERM to its "
                    "process group, and SIGKILL 500 ms later",
     .default_value = "10000"},
    {.name = "max_output",
     .description = "Bytes kept of stdout and of stderr each (1-1048576); past it the output is "
                    "cut and the process stopped",
     .default_value = "65536"},
    {.name = "max_arg",
     .description = "Longest value of one placeholder, in bytes (1-65536)",
     .default_value = "4096"},
    {.name = "cwd",
     .description = "Folder the commands run in, and beneath which path placeholders "
                    "({name:file}, {name:dir}, {name:path}) must resolve; relative to the INI "
                    "file's folder. Only trusted users should be able to write in it",
     .default_value = "."},
    {.name = "guard",
     .description =
         "yes: run each command under a guard process (a copy of mcph made a child subreaper, "
         "with PR_SET_PDEATHSIG) that kills everything the command started when it ends, is "
         "stopped, or mcph dies, even by SIGKILL: processes that left its process group "
         "(setsid, daemons) included. One more process per call. no: the command dies with "
         "mcph and the rest of its process group when it ends, but a process that called "
         "setsid outlives the call, and if mcph is killed with SIGKILL whatever the command "
         "started outlives it",
     .default_value = "no"},
    {.name = "env",
     .description = "The environment besides PATH=/usr/bin:/bin, LANG=C.UTF-8 and HOME: "
                    "words NAME (copied from mcph's environment when set there) or NAME=VALUE; "
                    "either may replace the defaults",
     .default_value = ""},
    {0},
};

static const struct mcph_plugin exec_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "exec",
    .version = "1.0.0",
    .description = "Runs the commands listed in its config (argv, no shell), each as a tool",
    .flags = MCPH_PLUGIN_THREAD_SAFE, /* handlers only read the state init() made */
    .config_keys = exec_config_keys,
    .init = exec_init,
    .shutdown = exec_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &exec_plugin;
}
